/// The Redis names of one room's state. Every name carries the hash tag `{room:R}`, so a room
/// lives in one Redis Cluster slot and the room-event script may touch all of them atomically.
/// `room` is the normalized (lower-case) name: room names have no braces (`[a-z0-9_-]`), so the
/// tag is always the whole `room:R`.
public struct RoomKeys: Hashable, Sendable {
    public let room: String
    private let tag: String

    public init(room: String) {
        self.room = room
        tag = "{room:\(room)}"
    }

    /// The last seq assigned (INCR).
    public var seq: String { "\(tag):seq" }
    /// The room's events, entry IDs `seq-0`, one field `e` with the encoded event.
    public var events: String { "\(tag):events" }
    /// Where the script publishes each event as "seq meta payload".
    public var channel: String { "\(tag):live" }
    /// The room's members on every node: nick key → the member's record (``RoomMember``), changed
    /// by the script together with the event that changes it.
    public var members: String { "\(tag):members" }
    /// The room's settings (owner, operators, topic, modes, bans, invites), one field each,
    /// changed by the script together with the event that announces the change.
    public var settings: String { "\(tag):settings" }
    /// Typing indicators of the room's members, published (never stored) for the other nodes.
    public var typing: String { "\(tag):typing" }
    /// Remembers for a while which seq a client's message id got, so a resend after a lost
    /// reply is answered with the same seq instead of stored twice.
    public func sent(_ dedupe: String) -> String { "\(tag):sent:\(dedupe)" }
}
