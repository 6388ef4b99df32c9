/// The room events a history store keeps (PROTOCOL.md section 3: "Stored events are `msg`,
/// `joined`, `left` and `nick"; section 8 adds the moderation events, section 9 `file`). The raw value is the wire
/// `type` and the column value.
public enum StoredEventKind: String, Sendable, CaseIterable {
    case msg
    case joined
    case left
    case nick
    case topic
    case kicked
    case banned
    case unbanned
    case op
    case deop
    case mode
    /// A file shared in the room (PROTOCOL.md section 9).
    case file
}
