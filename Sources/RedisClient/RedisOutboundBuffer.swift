/// Encoded commands waiting for the socket: appended at the end, written from the front.
public struct RedisOutboundBuffer: Sendable {
    private var storage: [UInt8] = []
    private var start = 0

    public init() {}

    public var count: Int { storage.count - start }
    public var isEmpty: Bool { start == storage.count }

    /// Appends the encoding of `command`.
    mutating func append(_ command: RedisCommand) { RESPEncoder.append(command, to: &storage) }

    /// Calls `body` with the unwritten bytes; `body` returns how many it wrote.
    public mutating func write(_ body: (UnsafeRawBufferPointer) throws -> Int) rethrows {
        guard !isEmpty else { return }
        let written = try storage.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[start...])) }
        consume(written)
    }

    /// The unwritten bytes (tests).
    public var bytes: [UInt8] { Array(storage[start...]) }

    public mutating func consume(_ written: Int) {
        start += written
        if start == storage.count {
            storage.removeAll(keepingCapacity: storage.capacity <= 1 << 16)
            start = 0
        } else if start >= 1 << 16 && start * 2 >= storage.count {
            storage.removeFirst(start)
            start = 0
        }
    }

    public mutating func removeAll() {
        storage.removeAll()
        start = 0
    }
}
