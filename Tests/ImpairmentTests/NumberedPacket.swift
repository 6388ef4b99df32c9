/// Test payloads that carry their own sequence number, so order and survivors can be checked.
enum NumberedPacket {
    /// A packet whose first four bytes are `sequence` (big endian), padded to `size` bytes.
    static func make(_ sequence: Int, size: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0xA5, count: max(size, 4))
        for index in 0..<4 { bytes[index] = UInt8(truncatingIfNeeded: sequence >> (24 - 8 * index)) }
        return bytes
    }

    static func sequence(of bytes: [UInt8]) -> Int {
        bytes.prefix(4).reduce(0) { $0 << 8 | Int($1) }
    }
}
