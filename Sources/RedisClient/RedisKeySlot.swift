/// Redis Cluster's hash slot of a key: CRC16 (XMODEM) of the key, or of its hash tag (what lies
/// between the first `{` and the first `}` after it, when not empty), modulo 16384. Keys with the
/// same tag live in the same slot: `{room:lobby}:seq` and `{room:lobby}:events` do.
public enum RedisKeySlot {
    public static let count = 16_384

    public static func slot<Key: Collection>(of key: Key) -> Int where Key.Element == UInt8 {
        let bytes = Array(key)
        if let open = bytes.firstIndex(of: UInt8(ascii: "{")),
           let close = bytes[(open + 1)...].firstIndex(of: UInt8(ascii: "}")), close > open + 1 {
            return Int(crc16(bytes[(open + 1)..<close]) % UInt16(count))
        }
        return Int(crc16(bytes[...]) % UInt16(count))
    }

    public static func slot(of key: String) -> Int { slot(of: Array(key.utf8)) }

    private static let table: [UInt16] = (0..<256).map { byte in
        var crc = UInt16(byte) << 8
        for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        return crc
    }

    static func crc16(_ bytes: ArraySlice<UInt8>) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes { crc = (crc << 8) ^ table[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)] }
        return crc
    }
}
