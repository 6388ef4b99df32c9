/// Someone typing in a room, until `expiresAt` (Unix milliseconds) unless they type again.
public struct Typist: Sendable, Equatable {
    public var nick: String
    public var expiresAt: Int64

    public init(nick: String, expiresAt: Int64) {
        self.nick = nick
        self.expiresAt = expiresAt
    }
}
