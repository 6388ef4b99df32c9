/// A ``JSONByteSink`` that only counts.
struct JSONByteCounter: JSONByteSink {
    private(set) var count = 0

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        count += 1
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        count += bytes.count
    }
}
