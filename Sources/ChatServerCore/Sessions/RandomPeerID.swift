/// Random version-4 UUIDs in the usual upper-case text form, for clients that join without
/// a `peer`, and random hex keys. Written by hand so the message path needs no Foundation. The
/// randomness comes from the caller: the core's is the generator given to ``ChatServerState`` at
/// init (the glue passes the system's; unit tests may pass a seeded one).
public enum RandomPeerID {
    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    public static func make<Generator: RandomNumberGenerator>(using generator: inout Generator) -> String {
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

    /// 32 random lowercase hex digits: file ids and the names of partial upload files.
    public static func hexKey<Generator: RandomNumberGenerator>(using generator: inout Generator) -> String {
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

extension ChatServerState {
    /// A peer id of the server's making, from the state's generator.
    func makePeerID() -> String { RandomPeerID.make(using: &random) }

    /// A file id or partial upload key, from the state's generator.
    func makeHexKey() -> String { RandomPeerID.hexKey(using: &random) }
}
