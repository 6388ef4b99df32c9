/// Random version-4 UUIDs in the usual upper-case text form, for clients that join without
/// a `peer`. Written by hand so the message path needs no Foundation.
public enum RandomPeerID {
    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    static func make<Generator: RandomNumberGenerator>(using generator: inout Generator) -> String {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40  // version 4
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(hexDigits[Int(byte >> 4)])
            text.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return make(using: &generator)
    }
}

extension RandomPeerID {
    /// 32 random lowercase hex digits: file ids and the names of partial upload files.
    public static func hexKey() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(32)
        for _ in 0..<16 {
            let byte = UInt8.random(in: 0...255, using: &generator)
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
