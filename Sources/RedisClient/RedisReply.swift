/// One RESP2 reply. An error reply is a value like any other: the command was answered, and it
/// is the caller's to read (`-MOVED`, `-NOSCRIPT` and `-ERR` arrive here).
public enum RedisReply: Hashable, Sendable {
    case status(String)
    case error(String)
    case integer(Int64)
    case bulk([UInt8])
    /// A nil bulk string or nil array (RESP2 does not tell them apart).
    case null
    case array([RedisReply])

    /// The bytes of a bulk string or the text of a status; nil otherwise.
    public var bytes: [UInt8]? {
        switch self {
        case .bulk(let bytes): return bytes
        case .status(let text): return Array(text.utf8)
        default: return nil
        }
    }

    /// A bulk string or status as text (invalid UTF-8 repaired).
    public var text: String? { bytes.map { String(decoding: $0, as: UTF8.self) } }

    /// An integer reply, or a bulk string holding a decimal integer (what Lua's numbers become).
    public var integer: Int64? {
        switch self {
        case .integer(let value): return value
        case .bulk(let bytes): return Int64(String(decoding: bytes, as: UTF8.self))
        default: return nil
        }
    }

    public var elements: [RedisReply]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    public var errorText: String? {
        if case .error(let text) = self { return text }
        return nil
    }
}
