/// A FIFO that holds at most `capacity` elements and drops the oldest to make room, for
/// presence events waiting for a client's presence stream.
struct BoundedQueue<Element> {
    let capacity: Int
    private var elements: [Element] = []
    /// Index of the oldest element still held; the ones before it were dropped.
    private var head = 0
    private(set) var droppedCount = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    var count: Int { elements.count - head }
    var isEmpty: Bool { count == 0 }

    mutating func append(_ element: Element) {
        elements.append(element)
        if count > capacity {
            head += 1
            droppedCount += 1
            // Compact once the dropped prefix outweighs the held part: amortised O(1).
            if head >= capacity {
                elements.removeFirst(head)
                head = 0
            }
        }
    }

    /// Everything held, oldest first, leaving the queue empty.
    mutating func removeAll() -> ArraySlice<Element> {
        let held = elements[head...]
        elements = []
        head = 0
        return held
    }
}
