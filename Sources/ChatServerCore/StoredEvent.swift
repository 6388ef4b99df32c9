import ChatProtocol

/// One room event as the history store keeps it.
public struct StoredEvent: Sendable, Equatable, Hashable {
    public var room: String
    public var seq: Int64
    public var ts: Int64
    public var kind: StoredEventKind
    /// The nick that caused the event (for `nick`: the old nick).
    public var sender: String
    /// `msg`: the sanitised body; `left`: the reason; `nick`: the new nick; `joined`: empty.
    public var text: String
    /// The client's id of a `msg`, if it gave one.
    public var id: String?

    public init(room: String, seq: Int64, ts: Int64, kind: StoredEventKind, sender: String, text: String, id: String? = nil) {
        self.room = room
        self.seq = seq
        self.ts = ts
        self.kind = kind
        self.sender = sender
        self.text = text
        self.id = id
    }

    /// The event as clients receive it; `replay` marks a re-send from history.
    public func message(replay: Bool) -> ChatMessage {
        var message = ChatMessage(
            type: kind.rawValue, text: text, sender: sender, room: room, id: id, seq: seq, ts: ts)
        if replay { message.replay = true }
        return message
    }
}
