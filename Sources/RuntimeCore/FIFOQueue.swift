/// A first-in first-out queue with amortised O(1) push and pop (the standard library has no deque).
/// Inlinable: the engine's event and transmit queues use it per packet, from another module.
public struct FIFOQueue<Element> {
    @inlinable
    public init() {}

    @usableFromInline var storage: [Element] = []
    @usableFromInline var head = 0

    @inlinable public var isEmpty: Bool { head == storage.count }
    @inlinable public var count: Int { storage.count - head }
    @inlinable public var first: Element? { isEmpty ? nil : storage[head] }

    @inlinable
    public mutating func append(_ element: Element) { storage.append(element) }

    @inlinable
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

    @inlinable
    public subscript(index: Int) -> Element {
        get { storage[head + index] }
        set { storage[head + index] = newValue }
    }

    @inlinable
    public mutating func removeAll() {
        storage.removeAll()
        head = 0
    }
}
