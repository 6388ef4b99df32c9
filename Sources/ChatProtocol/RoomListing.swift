/// One room as `rooms` and `whois` list it: `{"room":R,"members":N,"topic":T}` (PROTOCOL.md
/// section 8).
public struct RoomListing: Sendable, Equatable, Hashable, Codable {
    public var room: String
    /// How many are in it.
    public var members: Int
    /// "" when the room has none.
    public var topic: String

    public init(room: String, members: Int, topic: String = "") {
        self.room = room
        self.members = members
        self.topic = topic
    }
}
