/// One `/command` of chat-client: its name, what it takes, what it does, and the handler that does
/// it (through a ``CommandContext``). Every mode reads the one table (``ClientCommands/all``):
/// line mode and the full-screen UI run lines through it, `/help` describes it, Tab completes
/// from it, and the docs are checked against it.
public struct ClientCommand: Sendable {
    /// What an argument is, for Tab completion.
    public enum Argument: Sendable, Equatable {
        case nick, room, path, command, text, number, word
    }

    public let name: String
    /// Other names it answers to (`/j` for `/join`).
    public let aliases: [String]
    /// The arguments as `/help` shows them (`ROOM`, `[ROOM]`, `NICK TEXT`).
    public let arguments: String
    public let summary: String
    /// How many words it takes.
    public let words: ClosedRange<Int>
    /// Its last word holds the rest of the line as typed, spaces and all (a message, a reason).
    public let lastTakesRest: Bool
    /// Takes `-server` before its words (moderation of the whole server).
    public let takesServerFlag: Bool
    /// What each argument is, in order (Tab completion).
    public let completes: [Argument]
    /// Only the full-screen UI can carry it out (buffers, scrollback).
    public let fullScreenOnly: Bool
    let handler: @Sendable (CommandContext, Invocation) throws(CommandError) -> Void

    init(_ name: String, aliases: [String] = [], takes arguments: String = "", words: ClosedRange<Int> = 0...0, rest: Bool = false, serverFlag: Bool = false,
         completes: [Argument] = [], fullScreenOnly: Bool = false, _ summary: String,
         handler: @escaping @Sendable (CommandContext, Invocation) throws(CommandError) -> Void) {
        self.name = name
        self.aliases = aliases
        self.arguments = arguments
        self.summary = summary
        self.words = words
        lastTakesRest = rest
        takesServerFlag = serverFlag
        self.completes = completes
        self.fullScreenOnly = fullScreenOnly
        self.handler = handler
    }

    /// `/join ROOM`.
    public var usage: String { "/" + name + (arguments.isEmpty ? "" : " " + arguments) }

    /// What a command line gave a handler.
    public struct Invocation: Sendable, Equatable {
        /// The words; for a command whose last word takes the rest of the line, that word holds it.
        public let words: [String]
        /// Everything after the name (and after `-server`), as typed, leading spaces dropped.
        public let rest: Substring
        /// `-server` came first.
        public let server: Bool

        public subscript(index: Int) -> String? { words.indices.contains(index) ? words[index] : nil }
    }

    /// Splits `rest` into at most `limit` words, the last holding the rest of it as typed.
    static func split(_ rest: Substring, limit: Int) -> [String] {
        var words: [String] = []
        var remainder = rest.drop { $0 == " " }
        while !remainder.isEmpty, words.count < limit {
            if words.count == limit - 1 {
                words.append(String(remainder))
                break
            }
            let end = remainder.firstIndex(of: " ") ?? remainder.endIndex
            words.append(String(remainder[..<end]))
            remainder = remainder[end...].drop { $0 == " " }
        }
        return words
    }
}
