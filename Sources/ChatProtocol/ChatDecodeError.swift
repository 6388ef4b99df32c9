/// Why one message could not be decoded. The stream it came on stays usable.
public enum ChatDecodeError: Error, Sendable, Equatable, Hashable {
    /// Not valid JSON (RFC 8259), not an object, invalid UTF-8 inside a string, a lone
    /// surrogate escape, nesting deeper than ``ChatLimits/maxNestingDepth``, or bytes after the object.
    case badJSON
    /// Valid JSON, but the named known field has the wrong JSON type, an integer field holds a
    /// fraction, exponent or out-of-range number, or `type` is missing or not a string.
    case badField(String)

    /// The `code` to put into the `error` reply.
    public var errorCode: ErrorCode {
        switch self {
        case .badJSON: .badJSON
        case .badField: .badField
        }
    }

    /// A human-readable `text` for the `error` reply.
    public var reason: String {
        switch self {
        case .badJSON: "message is not a valid JSON object"
        case .badField(let name): "field '\(name)' is missing or has the wrong type"
        }
    }
}
