/// One `bot NAME [ROOM] [password PASSWORD] { ... }` block: the nick it asks for, its first room,
/// the password its hello carries (to log in to the account NAME) and its commands.
struct ScriptBotDefinition: Equatable, Sendable {
    var name: String
    var room: String
    var password: String? = nil
    /// The line of the `bot` header, named when the bot cannot connect or join.
    var line: Int
    var commands: [ScriptCommand]
}
