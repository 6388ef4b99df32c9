/// The `code` values of an `error` message (PROTOCOL.md section 5).
public enum ErrorCode: String, Sendable, CaseIterable {
    case badJSON = "bad-json"
    case badField = "bad-field"
    case unknownType = "unknown-type"
    case tooLarge = "too-large"
    case notJoined = "not-joined"
    case badNick = "bad-nick"
    case nickInUse = "nick-in-use"
    case badRoom = "bad-room"
    case noSuchUser = "no-such-user"
    case rateLimited = "rate-limited"
    /// Version 1.1 (PROTOCOL.md section 12): a `join` beyond the rooms a connection may be in.
    case tooManyRooms = "too-many-rooms"
}
