/// Where ``JSONWriter`` puts its output. Encoding runs twice over the same code: once into
/// a ``JSONByteCounter`` for the exact size, then into a ``JSONBufferFiller`` over an array
/// allocated at that size, so each message costs one allocation and no per-byte bookkeeping.
protocol JSONByteSink {
    mutating func append(_ byte: UInt8)
    mutating func append(_ bytes: UnsafeRawBufferPointer)
}
