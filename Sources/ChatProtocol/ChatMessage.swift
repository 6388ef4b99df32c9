/// One qchat message: a JSON object with a string `type` (PROTOCOL.md section 3).
///
/// Every field of the protocol is here, so a single type serves both directions and all
/// three channels (chat stream, presence stream, datagrams). `text` and `sender` are not
/// optional because encoders always write them, which keeps the original
/// `{text, type, sender}` clients able to decode every message.
public struct ChatMessage: Sendable, Equatable, Hashable {
    /// Required. Usually one of ``MessageType``, but unknown types decode too.
    public var type: String
    /// Body, nick, status word or reason, depending on `type`.
    public var text: String
    /// A nick. Set by the server on everything it relays.
    public var sender: String
    /// Room name; absent means ``ChatLimits/defaultRoom``.
    public var room: String?
    /// Client-chosen UUID of a `msg` or `dm`, which makes a resend idempotent.
    public var id: String?
    /// Per-room sequence number assigned by the server.
    public var seq: Int64?
    /// Server time in Unix milliseconds.
    public var ts: Int64?
    /// The client's peer id, a UUID kept across reconnects.
    public var peer: String?
    /// Recipient nick of a `dm`.
    public var to: String?
    /// In `join`: the last `seq` the client has seen in that room.
    public var since: Int64?
    /// In `history`: only events with `seq` below this.
    public var before: Int64?
    /// In `history`: how many events at most.
    public var limit: Int?
    /// In `roster`: everyone in the room.
    public var members: [String]?
    /// In `error`: one of ``ErrorCode``.
    public var code: String?
    /// True on room events re-sent from history.
    public var replay: Bool?

    /// Every field; `type` may be any string, so tests and tools can build unknown types too.
    public init(
        type: String,
        text: String = "",
        sender: String = "",
        room: String? = nil,
        id: String? = nil,
        seq: Int64? = nil,
        ts: Int64? = nil,
        peer: String? = nil,
        to: String? = nil,
        since: Int64? = nil,
        before: Int64? = nil,
        limit: Int? = nil,
        members: [String]? = nil,
        code: String? = nil,
        replay: Bool? = nil
    ) {
        self.type = type
        self.text = text
        self.sender = sender
        self.room = room
        self.id = id
        self.seq = seq
        self.ts = ts
        self.peer = peer
        self.to = to
        self.since = since
        self.before = before
        self.limit = limit
        self.members = members
        self.code = code
        self.replay = replay
    }

    /// The known type, or nil for a type this protocol version does not define.
    public var messageType: MessageType? { MessageType(rawValue: type) }

    /// The room this message refers to, with the protocol default applied (not validated).
    public var roomOrDefault: String { room ?? ChatLimits.defaultRoom }
}
