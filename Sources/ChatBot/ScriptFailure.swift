/// Why a script run failed (exit status 1): the line, the bot, what did not happen.
struct ScriptFailure: Error, Sendable {
    var line: Int
    var bot: String
    var message: String
}
