/// One room as a list names it. Two shapes share the `rooms` key:
/// - in `rooms` and `whois` (PROTOCOL.md section 8): `{"room":R,"members":N,"topic":T}`;
/// - in `welcome` of a logged-in connection (section 14): `{"room":R,"seq":S,"read":R,"unread":U,
///   "mentions":M}`, the account's kept rooms with its ``ReadPosition`` in each.
/// A listing with a `position` is written in the second shape, one without in the first.
public struct RoomListing: Sendable, Equatable, Hashable {
    public var room: String
    /// How many are in it (first shape).
    public var members: Int
    /// "" when the room has none (first shape).
    public var topic: String
    /// The account's place in the room (second shape).
    public var position: ReadPosition?

    public init(room: String, members: Int, topic: String = "") {
        self.room = room
        self.members = members
        self.topic = topic
        self.position = nil
    }

    /// One of a logged-in account's kept rooms, for `welcome`.
    public init(room: String, position: ReadPosition) {
        self.room = room
        self.members = 0
        self.topic = ""
        self.position = position
    }
}
