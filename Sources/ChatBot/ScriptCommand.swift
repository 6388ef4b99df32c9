/// One command of a bot, with the script line a failure names.
struct ScriptCommand: Equatable, Sendable {
    var line: Int
    var action: ScriptAction

    init(line: Int, _ action: ScriptAction) {
        self.line = line
        self.action = action
    }
}
