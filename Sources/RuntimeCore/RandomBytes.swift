import Glibc

/// Unpredictable bytes from the kernel's generator, drawn 4 KiB at a time: connection IDs,
/// ngtcp2's random needs and stateless-reset padding take a few bytes per connection or per
/// packet, and asking the kernel each time was a system call per byte (72 per connection).
/// Each byte is handed out once. One per endpoint (and one per Redis client, for its reconnect
/// jitter), used on its thread only. The seeded generator, for what must repeat, is SplitMix64.
public final class RandomBytes {
    public init() {}

    private static let capacity = 4096
    private let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: RandomBytes.capacity)
    private var used = RandomBytes.capacity

    deinit {
        buffer.update(repeating: 0, count: RandomBytes.capacity)
        buffer.deallocate()
    }

    /// Fills `count` bytes at `destination`.
    public func fill(_ destination: UnsafeMutableRawPointer, count: Int) {
        var filled = 0
        while filled < count {
            if used == RandomBytes.capacity {
                arc4random_buf(buffer, RandomBytes.capacity)
                used = 0
            }
            let take = min(count - filled, RandomBytes.capacity - used)
            (destination + filled).copyMemory(from: buffer + used, byteCount: take)
            // What was handed out is not kept.
            (buffer + used).update(repeating: 0, count: take)
            used += take
            filled += take
        }
    }

    public func bytes(_ count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { storage, initialized in
            fill(storage.baseAddress!, count: count)
            initialized = count
        }
    }

    public func next() -> UInt64 {
        var value: UInt64 = 0
        withUnsafeMutableBytes(of: &value) { fill($0.baseAddress!, count: 8) }
        return value
    }
}
