/// A binary min-heap of connection deadlines. Entries are never updated in place: a connection
/// pushes a new entry only when its deadline moves earlier, and stale entries are recognised when
/// they surface (their deadline no longer matches the connection's scheduled one, or the
/// connection is gone).
///
/// Entries name their connection by number, not by reference: the heap moves entries on every
/// push and pop, and plain values move without reference counting.
struct TimerHeap {
    struct Entry {
        var deadline: UInt64
        /// ``QuicConnection/id``.
        var connection: UInt64
    }

    private var entries: [Entry] = []

    var first: Entry? { entries.first }
    var count: Int { entries.count }

    mutating func push(_ entry: Entry) {
        entries.append(entry)
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entry.deadline < entries[parent].deadline else { break }
            entries[child] = entries[parent]
            child = parent
        }
        entries[child] = entry
    }

    mutating func popFirst() -> Entry? {
        guard let first = entries.first else { return nil }
        let last = entries.removeLast()
        guard !entries.isEmpty else { return first }
        // Sift the last entry down from the root, moving children up into the hole.
        var parent = 0
        let count = entries.count
        while true {
            let left = parent * 2 + 1
            guard left < count else { break }
            let right = left + 1
            let smaller = right < count && entries[right].deadline < entries[left].deadline ? right : left
            guard entries[smaller].deadline < last.deadline else { break }
            entries[parent] = entries[smaller]
            parent = smaller
        }
        entries[parent] = last
        return first
    }
}
