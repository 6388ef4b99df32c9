/// Immutable bytes at a stable address, shared by every stream that sends them.
///
/// ngtcp2 keeps pointers to stream data until the peer acknowledges it, so data handed to a stream
/// must not move. A broadcast encodes a message once into one `OutboundBytes` and queues the same
/// object on every member's stream: the fan-out copies no bytes.
// Sendable: the bytes are written only in init and never change; deinit frees them when the
// last reference goes, which Swift's reference counting makes safe across threads.
public final class OutboundBytes: @unchecked Sendable {
    let base: UnsafeMutableRawPointer
    public let count: Int

    public init(_ bytes: some Collection<UInt8>) {
        count = bytes.count
        base = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 1)
        var offset = 0
        for byte in bytes {
            base.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self)
            offset += 1
        }
    }

    public init(_ bytes: [UInt8]) {
        count = bytes.count
        base = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 1)
        bytes.withUnsafeBytes { base.copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(base), byteCount: count) }
    }

    deinit { base.deallocate() }

    public var bytes: [UInt8] {
        Array(UnsafeRawBufferPointer(start: base, count: count))
    }
}
