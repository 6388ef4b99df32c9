/// One `bot NAME [ROOM] { ... }` block: the nick it asks for, its first room and its commands.
struct ScriptBotDefinition: Equatable, Sendable {
    var name: String
    var room: String
    /// The line of the `bot` header, named when the bot cannot connect or join.
    var line: Int
    var commands: [ScriptCommand]
}
