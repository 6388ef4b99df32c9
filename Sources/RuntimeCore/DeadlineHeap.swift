/// A binary min-heap of elements by deadline: the one heap of the tree. The engine keeps its
/// connections' timers in one, the event loop its scheduled bodies, the impairment proxy its
/// delayed packets. O(log n) per insert and removal however many thousands are waiting; equal
/// deadlines come out in insertion order, so a constant delay never reorders.
///
/// Entries are never updated in place: a user whose deadline moves pushes a new entry and
/// recognises the stale one when it surfaces. Sifting moves entries into a hole rather than
/// swapping pairs, and an element that is a plain value (a connection's number, say) moves
/// without reference counting.
public struct DeadlineHeap<Element> {
    @usableFromInline
    struct Entry {
        @usableFromInline var deadline: MonotonicTime
        @usableFromInline var sequence: UInt64
        @usableFromInline var element: Element

        @inlinable
        init(deadline: MonotonicTime, sequence: UInt64, element: Element) {
            self.deadline = deadline
            self.sequence = sequence
            self.element = element
        }

        @inlinable
        func precedes(_ other: Entry) -> Bool {
            deadline < other.deadline || (deadline == other.deadline && sequence < other.sequence)
        }
    }

    @usableFromInline var entries: [Entry] = []
    @usableFromInline var nextSequence: UInt64 = 0

    @inlinable
    public init() {}

    @inlinable public var count: Int { entries.count }
    @inlinable public var isEmpty: Bool { entries.isEmpty }
    @inlinable public var earliestDeadline: MonotonicTime? { entries.first?.deadline }

    /// The earliest entry, left in the heap.
    @inlinable
    public var earliest: (deadline: MonotonicTime, element: Element)? {
        guard let first = entries.first else { return nil }
        return (first.deadline, first.element)
    }

    @inlinable
    public mutating func insert(_ element: Element, deadline: MonotonicTime) {
        let entry = Entry(deadline: deadline, sequence: nextSequence, element: element)
        nextSequence &+= 1
        entries.append(entry)
        // Indices stay within the buffer: the sifts run without bounds checks (per packet in the engine).
        entries.withUnsafeMutableBufferPointer { heap in
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard entry.precedes(heap[parent]) else { break }
                heap[child] = heap[parent]
                child = parent
            }
            heap[child] = entry
        }
    }

    /// Removes and returns the earliest entry.
    @inlinable
    @discardableResult
    public mutating func popEarliest() -> (deadline: MonotonicTime, element: Element)? {
        guard let first = entries.first else { return nil }
        let last = entries.removeLast()
        if !entries.isEmpty {
            // Sift the last entry down from the root, moving children up into the hole.
            entries.withUnsafeMutableBufferPointer { heap in
                var parent = 0
                let count = heap.count
                while true {
                    let left = parent * 2 + 1
                    guard left < count else { break }
                    let right = left + 1
                    let smaller = right < count && heap[right].precedes(heap[left]) ? right : left
                    guard heap[smaller].precedes(last) else { break }
                    heap[parent] = heap[smaller]
                    parent = smaller
                }
                heap[parent] = last
            }
        }
        return (first.deadline, first.element)
    }

    /// Removes and returns the earliest element if its deadline is at or before `now`.
    @inlinable
    public mutating func popDue(now: MonotonicTime) -> Element? {
        guard let first = entries.first, first.deadline <= now else { return nil }
        return popEarliest()?.element
    }
}
