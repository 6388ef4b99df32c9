/// Splits bytes read from the command input into lines, keeping a partial line for the next
/// read. A line longer than 4 KiB is discarded rather than growing without bound.
struct CommandLineBuffer {
    private static let maximumLineLength = 4096
    private var partial: [UInt8] = []
    private var discardingOverlongLine = false

    mutating func append(_ bytes: UnsafeRawBufferPointer) -> [String] {
        var lines: [String] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if !discardingOverlongLine { lines.append(String(decoding: partial, as: UTF8.self)) }
                partial.removeAll(keepingCapacity: true)
                discardingOverlongLine = false
            } else if partial.count < CommandLineBuffer.maximumLineLength {
                partial.append(byte)
            } else {
                discardingOverlongLine = true
            }
        }
        return lines
    }

    /// The unterminated last line at end of input, if any.
    mutating func finish() -> String? {
        defer { partial.removeAll() }
        return partial.isEmpty || discardingOverlongLine ? nil : String(decoding: partial, as: UTF8.self)
    }
}
