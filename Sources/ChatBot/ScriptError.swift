/// A script that cannot run: what is wrong and on which line (exit status 2).
struct ScriptError: Error, Equatable, Sendable, CustomStringConvertible {
    var line: Int
    var message: String

    init(line: Int, _ message: String) {
        self.line = line
        self.message = message
    }

    var description: String { "line \(line): \(message)" }
}
