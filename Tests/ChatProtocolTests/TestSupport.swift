import ChatProtocol

/// The UTF-8 bytes of a Swift string literal.
func bytes(_ string: String) -> [UInt8] {
    Array(string.utf8)
}

/// Decodes a JSON text with the fast decoder.
func decode(_ json: String) throws(ChatDecodeError) -> ChatMessage {
    try ChatMessage.decode(bytes(json))
}

/// The error the fast decoder reports for some bytes, or nil when they decode.
func decodeError(_ json: [UInt8]) -> ChatDecodeError? {
    do {
        _ = try ChatMessage.decode(json)
        return nil
    } catch {
        return error
    }
}

/// The error the fast decoder reports for a JSON text, or nil when it decodes.
func decodeError(_ json: String) -> ChatDecodeError? {
    decodeError(bytes(json))
}

/// Feeds `chunks` one after another into a fresh decoder and collects all events.
func streamEvents(_ chunks: [[UInt8]], maxMessageBytes: Int = ChatLimits.maxStreamMessageBytes) -> [ChatStreamEvent] {
    var decoder = ChatStreamDecoder(maxMessageBytes: maxMessageBytes)
    return chunks.flatMap { decoder.feed($0) }
}

/// `input` cut at the given offsets, which must be ascending.
func split(_ input: [UInt8], at offsets: [Int]) -> [[UInt8]] {
    var chunks: [[UInt8]] = []
    var start = 0
    for offset in offsets {
        chunks.append(Array(input[start..<offset]))
        start = offset
    }
    chunks.append(Array(input[start...]))
    return chunks
}

/// A JSON object `{"type":"msg","text":"aaa…"}` of exactly `size` bytes.
func objectOfSize(_ size: Int) -> [UInt8] {
    let prefix = bytes(#"{"type":"msg","text":""#)
    let suffix = bytes(#""}"#)
    let fill = size - prefix.count - suffix.count
    precondition(fill >= 0)
    return prefix + [UInt8](repeating: UInt8(ascii: "a"), count: fill) + suffix
}

/// A message with every field set, including characters that need escaping.
let messageWithEveryField = ChatMessage(
    type: "msg", text: "hi \"bob\"\n\tC:\\ é 日本 🎉", sender: "alice", room: "lobby",
    id: "9A0E5E4C-1E0B-4D5E-9C4B-2F1A3C7D8E9F", seq: 42, ts: 1_764_480_001_234,
    peer: "6F1C2B3A-0000-4000-8000-000000000001", to: "bob", since: 41, before: 100, limit: 50,
    members: ["alice", "bob", "ça"], code: "bad-room", replay: true
)
