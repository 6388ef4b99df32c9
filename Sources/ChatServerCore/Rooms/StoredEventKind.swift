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
    /// A message's new text (version 1.2, section 15): `ref` names the message.
    case edit
    /// A message withdrawn: its text, and its edits' texts, are erased from storage.
    case redact
    /// A reaction (`text`, an emoji or `+1`) added to message `ref`, and taken back.
    case react
    case unreact

    /// A message others can revise, reply to and find: a `msg` or a `file`.
    public var isMessage: Bool { self == .msg || self == .file }

    /// An event that revises the message its `ref` names (section 15).
    public var isRevision: Bool { self == .edit || self == .redact || self == .react || self == .unreact }
}
