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

    public init(timestamp: Int64, nick: String, text: String, kind: Kind, id: String? = nil, isAction: Bool = false,
                isPrivate: Bool = false, isHighlight: Bool = false) {
        self.timestamp = timestamp
        self.nick = nick
        self.text = text
        self.kind = kind
        self.id = id
        self.isAction = isAction
        self.isPrivate = isPrivate || kind == .directMessage
        self.isHighlight = isHighlight
    }

    /// True for what counts as unread in a room not shown: others' messages, private or not.
    public var isUnreadable: Bool { kind == .message || kind == .directMessage }

    /// A rule across the pane (the read marker, a day change), not a line of the conversation.
    public var isRule: Bool { kind == .readMarker || kind == .dayChange }
}
