import ChatProtocol

/// An account or moderation request of a bot script (README, "Bot scripts"): sent as it is, in
/// the bot's current room unless it names one or acts on the whole server.
struct ScriptRequest: Equatable, Sendable {
    enum Scope: Equatable, Sendable {
        /// The bot's current room when the command runs.
        case currentRoom
        case room(String)
        /// No room: the account itself, or the whole server (`kick -server`...).
        case none
    }

    var type: MessageType
    var scope: Scope
    /// `to`: a nick (or another bot's name) or an account.
    var target: String?
    var text = ""
    var mode: String?
    var password: String?
    /// `login`'s account name.
    var account: String?

    /// The message, `target` a bot's name resolved to that bot's nick by `nick`.
    func message(currentRoom: String, nick: (String) -> String) -> ChatMessage {
        let room: String? = switch scope {
        case .currentRoom: currentRoom
        case .room(let name): name
        case .none: nil
        }
        return ChatMessage(type: type.rawValue, text: text, sender: account.map(nick) ?? "", room: room, to: target.map(nick),
                           password: password, mode: mode)
    }
}
