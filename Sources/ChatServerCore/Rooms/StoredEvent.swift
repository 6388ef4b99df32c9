import ChatProtocol

/// One room event as the history store keeps it.
public struct StoredEvent: Sendable, Equatable, Hashable {
    public var room: String
    public var seq: Int64
    public var ts: Int64
    public var kind: StoredEventKind
    /// The nick that caused the event (for `nick`: the old nick).
    public var sender: String
    /// `msg`: the sanitised body; `left`: the reason; `nick`: the new nick; `topic`: the topic;
    /// `kicked`, `banned`: the reason; `op` of a claim: `owner`; others: empty.
    public var text: String
    /// The client's id of a `msg`, if it gave one.
    public var id: String?
    /// The account the sender was logged in as (version 1.1; events stored before have none).
    public var account: String?
    /// Whom a `kicked`, `banned`, `unbanned`, `op` or `deop` names (`to` on the wire).
    public var target: String?
    /// A `mode` event's change, `+invite` and friends.
    public var mode: String?
    /// A `file` event's file id, size and SHA-256 (`text` is the file's name).
    public var file: String?
    public var size: Int64?
    public var sha256: String?
    /// The message an `edit`, `redact`, `react` or `unreact` revises, or a reply answers (version 1.2).
    public var ref: Int64?
    /// On a `msg` or `file`: the `ts` of its latest edit, which its `text` is.
    public var edited: Int64?
    /// On a `msg` or `file`: withdrawn; its text (and its edits' texts) erased.
    public var redacted: Bool

    public init(room: String, seq: Int64, ts: Int64, kind: StoredEventKind, sender: String, text: String, id: String? = nil,
                account: String? = nil, target: String? = nil, mode: String? = nil, file: String? = nil, size: Int64? = nil,
                sha256: String? = nil, ref: Int64? = nil, edited: Int64? = nil, redacted: Bool = false) {
        self.room = room
        self.seq = seq
        self.ts = ts
        self.kind = kind
        self.sender = sender
        self.text = text
        self.id = id
        self.account = account
        self.target = target
        self.mode = mode
        self.file = file
        self.size = size
        self.sha256 = sha256
        self.ref = ref
        self.edited = edited
        self.redacted = redacted
    }

    /// The event as clients receive it; `replay` marks a re-send from history.
    public func message(replay: Bool) -> ChatMessage {
        var message = ChatMessage(
            type: kind.rawValue, text: text, sender: sender, room: room, id: id, seq: seq, ts: ts, to: target, account: account,
            mode: mode, file: file, size: size, sha256: sha256)
        if replay { message.replay = true }
        message.ref = ref
        message.edited = edited
        if redacted { message.redacted = true }
        return message
    }
}
