/// Why a name or a text broke the rules of PROTOCOL.md section 4.
public enum ChatValidationError: Error, Sendable, Equatable, Hashable {
    case badNick
    case badRoom
    /// More than ``ChatLimits/maxTextBytes`` bytes of UTF-8 after sanitising.
    case textTooLarge
    /// Nothing left after sanitising.
    case textEmpty
    /// Version 1.2: a reaction that is not 1 to 32 bytes without spaces or control characters.
    case badReaction
    /// Version 1.2: a search whose text is not 1 to 256 bytes of 1 to 8 words.
    case badSearch
    /// Version 1.2: an away reason over 256 bytes.
    case awayTooLong

    /// The `code` to put into the `error` reply.
    public var errorCode: ErrorCode {
        switch self {
        case .badNick: .badNick
        case .badRoom: .badRoom
        case .textTooLarge: .tooLarge
        case .textEmpty, .badReaction, .badSearch, .awayTooLong: .badField
        }
    }

    /// A human-readable `text` for the `error` reply.
    public var reason: String {
        switch self {
        case .badNick:
            "a nick is 1 to \(ChatLimits.maxNickLength) characters: an ASCII letter, then ASCII letters, digits, '_' or '-'"
        case .badRoom:
            "a room name is 1 to \(ChatLimits.maxRoomLength) characters of a-z 0-9 _ -, starting with a letter or digit"
        case .textTooLarge:
            "text is longer than \(ChatLimits.maxTextBytes) bytes"
        case .textEmpty:
            "text is empty"
        case .badReaction:
            "a reaction is 1 to \(ChatLimits.maxReactionBytes) bytes without spaces or control characters"
        case .badSearch:
            "a search is 1 to \(ChatLimits.maxSearchTextBytes) bytes of 1 to \(ChatLimits.maxSearchWords) words"
        case .awayTooLong:
            "an away reason is at most \(ChatLimits.maxAwayReasonBytes) bytes"
        }
    }
}
