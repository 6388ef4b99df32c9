/// A binary min-heap of connection deadlines. Entries are never updated in place: a connection
/// pushes a new entry only when its deadline moves earlier, and stale entries are recognised when
/// they surface (their deadline no longer matches the connection's scheduled one).
struct TimerHeap {
    struct Entry {
        var deadline: UInt64
        var connection: QuicConnection
    }

    private var entries: [Entry] = []

    var earliest: UInt64? { entries.first?.deadline }
    var first: Entry? { entries.first }
    var count: Int { entries.count }

    mutating func push(_ entry: Entry) {
        entries.append(entry)
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].deadline < entries[parent].deadline else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    mutating func popFirst() -> Entry? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let first = entries.removeLast()
        var parent = 0
        while true {
            let left = parent * 2 + 1
            let right = left + 1
            var smallest = parent
            if left < entries.count && entries[left].deadline < entries[smallest].deadline { smallest = left }
            if right < entries.count && entries[right].deadline < entries[smallest].deadline { smallest = right }
            guard smallest != parent else { break }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
        return first
    }
}
