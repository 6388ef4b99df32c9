/// Shorthands for the messages of PROTOCOL.md section 3, so call sites name the message
/// they mean and cannot forget a field the table requires.
extension ChatMessage {
    /// A message of a known type, with the fields most messages use.
    public init(
        _ type: MessageType,
        text: String = "",
        sender: String = "",
        room: String? = nil,
        id: String? = nil,
        seq: Int64? = nil,
        ts: Int64? = nil
    ) {
        self.init(type: type.rawValue, text: text, sender: sender, room: room, id: id, seq: seq, ts: ts)
    }

    // MARK: Client to server

    /// A `join`; the first one on a connection carries the wanted nick and the peer id, and may
    /// carry the password of the account that nick is (PROTOCOL.md section 7).
    public static func join(nick: String = "", peer: String? = nil, room: String, since: Int64? = nil,
                            password: String? = nil) -> ChatMessage {
        ChatMessage(type: MessageType.join.rawValue, sender: nick, room: room, peer: peer, since: since, password: password)
    }

    /// A room message as a client sends it.
    public static func msg(room: String, text: String, id: String) -> ChatMessage {
        ChatMessage(.msg, text: text, room: room, id: id)
    }

    /// A private message as a client sends it.
    public static func dm(to recipient: String, text: String, id: String) -> ChatMessage {
        ChatMessage(type: MessageType.dm.rawValue, text: text, id: id, to: recipient)
    }

    /// A request to change the own nick.
    public static func nick(_ newNick: String) -> ChatMessage {
        ChatMessage(.nick, text: newNick)
    }

    /// A request to leave a room.
    public static func part(room: String) -> ChatMessage {
        ChatMessage(.part, room: room)
    }

    /// Leaving with a quit message: the server closes the connection (NO_ERROR) and every room's
    /// `left` says `quit: text`.
    public static func quit(text: String, id: String? = nil) -> ChatMessage {
        var message = ChatMessage(.quit, text: text)
        message.id = id
        return message
    }

    /// A request for stored events of a room.
    public static func history(room: String, before: Int64? = nil, limit: Int? = nil) -> ChatMessage {
        ChatMessage(type: MessageType.history.rawValue, room: room, before: before, limit: limit)
    }

    /// A status word (`online`, `away`, `offline`) for the presence stream.
    public static func status(_ word: String, sender: String = "") -> ChatMessage {
        ChatMessage(.status, text: word, sender: sender)
    }

    /// A typing indicator; `isTyping` false sends `stop`.
    public static func typing(room: String, isTyping: Bool, sender: String = "") -> ChatMessage {
        ChatMessage(.typing, text: isTyping ? "start" : "stop", sender: sender, room: room)
    }

    // MARK: Server to client

    /// The answer to the first `join`.
    public static func welcome(nick: String, peer: String, serverName: String) -> ChatMessage {
        ChatMessage(type: MessageType.welcome.rawValue, text: serverName, sender: nick, peer: peer)
    }

    /// A room message as the server relays it.
    public static func relayedMsg(room: String, sender: String, text: String, id: String?, seq: Int64, ts: Int64) -> ChatMessage {
        ChatMessage(.msg, text: text, sender: sender, room: room, id: id, seq: seq, ts: ts)
    }

    /// Acknowledges the sender's own `msg` (with `room` and `seq`) or `dm` (without).
    public static func ack(id: String?, room: String? = nil, seq: Int64? = nil, ts: Int64) -> ChatMessage {
        ChatMessage(.ack, room: room, id: id, seq: seq, ts: ts)
    }

    /// A failed request; `id` echoes the request's id when it had one.
    public static func error(code: ErrorCode, text: String, id: String? = nil) -> ChatMessage {
        ChatMessage(type: MessageType.error.rawValue, text: text, id: id, code: code.rawValue)
    }

    /// Everyone in a room, for the presence stream.
    public static func roster(room: String, members: [String]) -> ChatMessage {
        ChatMessage(type: MessageType.roster.rawValue, room: room, members: members)
    }

    /// The end marker of a `history` answer.
    public static func historyEnd(room: String) -> ChatMessage {
        ChatMessage(.historyEnd, room: room)
    }
}
