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

    // Version 1.1 (PROTOCOL.md sections 7 and 8).

    /// The account a user is logged in as: set by the server on `welcome`, on `account` and on
    /// what it relays from a logged-in user.
    public var account: String?
    /// In the first `join`, `register`, `login` and `password`. Never logged, never relayed.
    public var password: String?
    /// In `password`: the account's current password (not needed on a connection whose
    /// certificate is bound to the account). Never logged, never relayed.
    public var old: String?
    /// In `mode`: `+invite`, `-invite`, `+registered` or `-registered`.
    public var mode: String?
    /// In `roster` and `rooms`: the room's topic.
    public var topic: String?
    /// In `welcome`: what the server offers (`accounts`, `moderation`, ...).
    public var features: [String]?
    /// In `roster`: the room's modes (`invite`, `registered`).
    public var modes: [String]?
    /// In `roster` (and on live events that change them): nicks of the room's operators present.
    public var ops: [String]?
    /// In `roster` (and on live events that change them): nicks of the members logged in to an
    /// account (docs/PROTOCOL.md section 7).
    public var identified: [String]?
    /// In `rooms` and `whois`: rooms with their member count and topic.
    public var rooms: [RoomListing]?

    // Version 1.1, files (PROTOCOL.md section 9).

    /// The server's opaque id of a stored file (`ack` of an upload, `file`, `download`).
    public var file: String?
    /// A file's size in bytes (`upload`, `file`).
    public var size: Int64?
    /// A file's SHA-256, 64 lowercase hex digits (`upload`, `file`).
    public var sha256: String?
    /// Where a resumed upload or a download starts, in bytes; in a `bad-offset` error, the
    /// bytes the server holds.
    public var offset: Int64?
    /// In an `error` `unavailable`: `false` when the server knows the request was not stored
    /// (nothing reached its store); absent when it may have been (docs/PROTOCOL.md section 10).
    public var stored: Bool?

    // Version 1.2, always on (PROTOCOL.md sections 13-17).

    /// The other account of a private conversation (`history`, `read`, `search`, `edit`, ... of a
    /// conversation; `found`).
    public var with: String?
    /// The `seq` of the message an `edit`, `redact`, `react`, `unreact` or a reply refers to.
    public var ref: Int64?
    /// A read marker: the highest `seq` the account has read (`read`).
    public var read: Int64?
    /// In `welcome`: the account's private conversations with an unread `dm`.
    public var conversations: [ConversationListing]?
    /// On a `msg`/`dm` read from history: the `ts` of its latest edit.
    public var edited: Int64?
    /// On a `msg`/`dm` read from history whose text was removed.
    public var redacted: Bool?
    /// In `found`: the stored events that matched, newest first.
    public var events: [ChatMessage]?
    /// The reason of an away user (`status` away, `whois`).
    public var away: String?

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
        replay: Bool? = nil,
        account: String? = nil,
        password: String? = nil,
        old: String? = nil,
        mode: String? = nil,
        topic: String? = nil,
        features: [String]? = nil,
        modes: [String]? = nil,
        ops: [String]? = nil,
        identified: [String]? = nil,
        rooms: [RoomListing]? = nil,
        file: String? = nil,
        size: Int64? = nil,
        sha256: String? = nil,
        offset: Int64? = nil,
        stored: Bool? = nil,
        with: String? = nil,
        ref: Int64? = nil,
        read: Int64? = nil,
        conversations: [ConversationListing]? = nil,
        edited: Int64? = nil,
        redacted: Bool? = nil,
        events: [ChatMessage]? = nil,
        away: String? = nil
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
        self.account = account
        self.password = password
        self.old = old
        self.mode = mode
        self.topic = topic
        self.features = features
        self.modes = modes
        self.ops = ops
        self.identified = identified
        self.rooms = rooms
        self.file = file
        self.size = size
        self.sha256 = sha256
        self.offset = offset
        self.stored = stored
        self.with = with
        self.ref = ref
        self.read = read
        self.conversations = conversations
        self.edited = edited
        self.redacted = redacted
        self.events = events
        self.away = away
    }

    /// The known type, or nil for a type this protocol version does not define.
    public var messageType: MessageType? { MessageType(rawValue: type) }

    /// The room this message refers to, with the protocol default applied (not validated).
    public var roomOrDefault: String { room ?? ChatLimits.defaultRoom }
}
