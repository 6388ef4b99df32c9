/// One line of a room's conversation as the client received or sent it. Text and nick are kept
/// raw; the renderer neutralises them when it draws.
public struct ChatLine: Sendable, Equatable {
    public enum Kind: Sendable, Equatable, CaseIterable {
        /// A room message from someone else.
        case message
        /// Our own message, sent but not yet acknowledged.
        case ownPending
        /// Our own message, acknowledged by the server.
        case ownConfirmed
        /// Our own message the server refused or that could not be sent.
        case ownFailed
        /// Joins, parts, nick changes: `nick` did `text`.
        case event
        /// An error to show the user, e.g. `nick-in-use`.
        case error
        /// A private message (`nick` is the other side, or a label like `me -> bob`).
        case directMessage
        /// A message replayed from the server's history.
        case history
        /// The read marker: where new lines began while the person was in another room.
        case readMarker
        /// A rule between lines of two days, `text` the new day (`2026-12-08`).
        case dayChange

        /// True for the three states of our own messages.
        public var isOwn: Bool {
            self == .ownPending || self == .ownConfirmed || self == .ownFailed
        }
    }

    /// Unix time in milliseconds: the server's `ts`, or the local time for a pending line.
    public var timestamp: Int64
    public var nick: String
    public var text: String
    public var kind: Kind
    /// The message id (`id` on the wire) for own messages, so an `ack` can find its line.
    public var id: String?
    /// A `/me` action: `text` is what the action says, shown as `* nick text`.
    public var isAction: Bool
    /// A private message (ours or the other side's): shown as `*nick* text`.
    public var isPrivate: Bool
    /// Mentions our nick or a highlight word (or is a private message to us): shown emphasised,
    /// counted apart.
    public var isHighlight: Bool

    // Version 1.2 (PROTOCOL.md section 15): what later events did to the message.

    /// The message's seq in its room or conversation (from the server's event, or the `ack` of our
    /// own): what an edit, a redaction or a reaction names.
    public var seq: Int64?
    /// Edited by its author: shown with `(edited)` after the text.
    public var isEdited = false
    /// Withdrawn (its text erased on the server): shown as ``removedText`` whatever `text` held.
    public var isRedacted = false
    /// The reactions to it, in the order they first came.
    public var reactions: [Reaction] = []
    /// The message it replies to, quoted before its text.
    public var reply: ReplyQuote?

    /// What a withdrawn message shows.
    public static let removedText = "(message removed)"

    public init(timestamp: Int64, nick: String, text: String, kind: Kind, id: String? = nil, isAction: Bool = false,
                isPrivate: Bool = false, isHighlight: Bool = false, seq: Int64? = nil) {
        self.timestamp = timestamp
        self.nick = nick
        self.text = text
        self.kind = kind
        self.id = id
        self.isAction = isAction
        self.isPrivate = isPrivate || kind == .directMessage
        self.isHighlight = isHighlight
        self.seq = seq
    }

    /// True for what counts as unread in a room not shown: others' messages, private or not.
    public var isUnreadable: Bool { kind == .message || kind == .directMessage }

    /// A rule across the pane (the read marker, a day change), not a line of the conversation.
    public var isRule: Bool { kind == .readMarker || kind == .dayChange }
}
