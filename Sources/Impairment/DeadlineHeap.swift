/// A binary min-heap of elements by deadline: O(log n) per packet however many thousands are in
/// flight. Equal deadlines come out in insertion order, so a constant delay never reorders.
struct DeadlineHeap<Element> {
    private struct Entry {
        var deadline: Nanoseconds
        var sequence: UInt64
        var element: Element

        func precedes(_ other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : sequence < other.sequence
        }
    }

    private var entries: [Entry] = []
    private var nextSequence: UInt64 = 0

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }
    var earliestDeadline: Nanoseconds? { entries.first?.deadline }

    mutating func insert(_ element: Element, deadline: Nanoseconds) {
        entries.append(Entry(deadline: deadline, sequence: nextSequence, element: element))
        nextSequence &+= 1
        siftUp(from: entries.count - 1)
    }

    /// The earliest element if its deadline is at or before `now`.
    mutating func popDue(now: Nanoseconds) -> Element? {
        guard let first = entries.first, first.deadline <= now else { return nil }
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries[0] = last
            siftDown(from: 0)
        }
        return first.element
    }

    private mutating func siftUp(from start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].precedes(entries[parent]) else { return }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < entries.count else { return }
            var smallest = left
            let right = left + 1
            if right < entries.count && entries[right].precedes(entries[left]) { smallest = right }
            guard entries[smallest].precedes(entries[parent]) else { return }
            entries.swapAt(smallest, parent)
            parent = smallest
        }
    }
}
