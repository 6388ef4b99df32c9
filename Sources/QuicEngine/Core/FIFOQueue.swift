/// A first-in first-out queue with amortised O(1) push and pop (the standard library has no deque).
public struct FIFOQueue<Element> {
    public init() {}

    private var storage: [Element] = []
    private var head = 0

    public var isEmpty: Bool { head == storage.count }
    public var count: Int { storage.count - head }
    public var first: Element? { isEmpty ? nil : storage[head] }

    public mutating func append(_ element: Element) { storage.append(element) }

    public mutating func popFirst() -> Element? {
        guard head < storage.count else { return nil }
        let element = storage[head]
        head += 1
        if head == storage.count {
            storage.removeAll(keepingCapacity: storage.capacity <= 1024)
            head = 0
        } else if head >= 1024 && head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }

    public subscript(index: Int) -> Element {
        get { storage[head + index] }
        set { storage[head + index] = newValue }
    }

    public mutating func removeAll() {
        storage.removeAll()
        head = 0
    }
}
