/// Shorthands for the moderation requests of PROTOCOL.md section 8, as a client sends them.
extension ChatMessage {
    /// Becomes the owner of a room that has none.
    public static func claim(room: String) -> ChatMessage {
        ChatMessage(.claim, room: room)
    }

    /// Sets (or, with an empty text, clears) a room's topic.
    public static func topic(room: String, text: String) -> ChatMessage {
        ChatMessage(.topic, text: text, room: room)
    }

    /// Removes `nick` from `room`; without a room (server operators only) closes its connection.
    public static func kick(room: String?, nick: String, reason: String = "") -> ChatMessage {
        ChatMessage(type: MessageType.kick.rawValue, text: reason, room: room, to: nick)
    }

    /// Bans a nick's account (a guest: its peer and address) or an account by name, from `room`
    /// or, without one (server operators only), from the server.
    public static func ban(room: String?, target: String, reason: String = "") -> ChatMessage {
        ChatMessage(type: MessageType.ban.rawValue, text: reason, room: room, to: target)
    }

    /// Lifts a ban of `room` (or, without one, a server ban).
    public static func unban(room: String?, target: String) -> ChatMessage {
        ChatMessage(type: MessageType.unban.rawValue, room: room, to: target)
    }

    /// Makes an account an operator of a room (owner only).
    public static func op(room: String, account: String) -> ChatMessage {
        ChatMessage(type: MessageType.op.rawValue, room: room, to: account)
    }

    /// Takes a room's operator status back from an account (owner only).
    public static func deop(room: String, account: String) -> ChatMessage {
        ChatMessage(type: MessageType.deop.rawValue, room: room, to: account)
    }

    /// Changes a room mode: `+invite`, `-invite`, `+registered`, `-registered`.
    public static func mode(room: String, _ change: String) -> ChatMessage {
        ChatMessage(type: MessageType.mode.rawValue, room: room, mode: change)
    }

    /// Lets `nick`'s account (a guest: its peer) join an invite-only room.
    public static func invite(room: String, nick: String) -> ChatMessage {
        ChatMessage(type: MessageType.invite.rawValue, room: room, to: nick)
    }

    /// Asks for the rooms that are not invite-only.
    public static func listRooms() -> ChatMessage {
        ChatMessage(.rooms)
    }

    /// Asks who `nick` is.
    public static func whois(_ nick: String) -> ChatMessage {
        ChatMessage(type: MessageType.whois.rawValue, to: nick)
    }
}
