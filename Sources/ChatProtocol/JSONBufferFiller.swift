/// A ``JSONByteSink`` that fills preallocated memory.
///
/// The capacity comes from a counting pass over the same message, so it is always exact;
/// the preconditions turn a mismatch into a crash instead of a buffer overflow.
struct JSONBufferFiller: JSONByteSink {
    private let buffer: UnsafeMutableRawBufferPointer
    private(set) var count = 0

    init(_ buffer: UnsafeMutableRawBufferPointer) {
        self.buffer = buffer
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        precondition(count < buffer.count, "JSON size was miscounted")
        buffer[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        precondition(bytes.count <= buffer.count - count, "JSON size was miscounted")
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        (buffer.baseAddress! + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }
}
