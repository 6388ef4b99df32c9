import ChatProtocol

/// Reads the bot script language (README, "Bot scripts") line by line. Every mistake is a
/// ``ScriptError`` naming its line; nothing is guessed.
struct ScriptParser {
    /// A `bot` or `repeat` block whose `}` has not been read yet.
    private struct OpenBlock {
        enum Kind {
            case bot(name: String, room: String, password: String?)
            case repeatBlock(times: Int?)
        }

        var kind: Kind
        var line: Int
        var commands: [ScriptCommand] = []
    }

    private var open: [OpenBlock] = []
    private var bots: [ScriptBotDefinition] = []

    static func parse(_ text: String) throws(ScriptError) -> Script {
        var parser = ScriptParser()
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, raw) in lines.enumerated() {
            try parser.read(raw.trimmed, line: index + 1)
        }
        return try parser.finish(lastLine: max(1, lines.count))
    }

    private mutating func read(_ text: Substring, line: Int) throws(ScriptError) {
        guard !text.isEmpty, !text.hasPrefix("#") else { return }
        let keyword = text.prefix { $0 != " " && $0 != "\t" }
        let rest = text.dropFirst(keyword.count).trimmed
        switch keyword {
        case "}":
            guard rest.isEmpty else { throw ScriptError(line: line, "nothing may follow '}' on its line") }
            try close(line: line)
        case "bot":
            guard open.isEmpty else {
                throw ScriptError(line: line, "a bot cannot be defined inside another block; close it with '}' first")
            }
            try openBot(rest, line: line)
        default:
            guard !open.isEmpty else {
                throw ScriptError(line: line, "'\(keyword)' outside a bot block (start one with 'bot NAME [ROOM] {')")
            }
            if let last = open[open.count - 1].commands.last, last.action == .quit {
                throw ScriptError(line: line, "nothing runs after 'quit' (line \(last.line))")
            }
            if keyword == "repeat" {
                open.append(OpenBlock(kind: .repeatBlock(times: try ScriptParser.repeatCount(rest, line: line)), line: line))
            } else {
                let action = try ScriptParser.action(String(keyword), rest, line: line)
                if action == .quit, open.count > 1 {
                    throw ScriptError(line: line, "'quit' must be the last command of its bot, not inside 'repeat'")
                }
                open[open.count - 1].commands.append(ScriptCommand(line: line, action))
            }
        }
    }

    private mutating func openBot(_ rest: Substring, line: Int) throws(ScriptError) {
        var words = try ScriptParser.blockHeader(rest, line: line, usage: "bot NAME [ROOM] [password PASSWORD] {")
        var password: String?
        if words.count >= 3, words[words.count - 2] == "password" {
            guard ChatValidation.isAcceptablePassword(words[words.count - 1]) else {
                throw ScriptError(line: line, "a password is 8 to 256 bytes")
            }
            password = words.removeLast()
            words.removeLast()
        }
        guard (1...2).contains(words.count) else { throw ScriptError(line: line, "expected 'bot NAME [ROOM] [password PASSWORD] {'") }
        let name = words[0]
        guard ChatValidation.isValidNick(name) else {
            throw ScriptError(line: line, "'\(name)' is not a valid nick (a letter, then letters, digits, _ or -; at most 24)")
        }
        if let other = bots.first(where: { ChatValidation.nickKey($0.name) == ChatValidation.nickKey(name) }) {
            throw ScriptError(line: line, "bot '\(name)' is already defined on line \(other.line)")
        }
        let room = words.count == 2 ? try ScriptParser.room(words[1], line: line) : ChatLimits.defaultRoom
        open.append(OpenBlock(kind: .bot(name: name, room: room, password: password), line: line))
    }

    private mutating func close(line: Int) throws(ScriptError) {
        guard let block = open.popLast() else { throw ScriptError(line: line, "'}' without an open block") }
        switch block.kind {
        case .bot(let name, let room, let password):
            bots.append(ScriptBotDefinition(name: name, room: room, password: password, line: block.line, commands: block.commands))
        case .repeatBlock(let times):
            guard !block.commands.isEmpty else { throw ScriptError(line: block.line, "this repeat block is empty") }
            if times == nil, !block.commands.contains(where: { $0.action.canWait }) {
                throw ScriptError(line: block.line,
                                  "'repeat forever' needs a wait, expect, join or part inside, or it would flood the server")
            }
            open[open.count - 1].commands.append(ScriptCommand(line: block.line, .repeatBlock(times: times, body: block.commands)))
        }
    }

    private func finish(lastLine: Int) throws(ScriptError) -> Script {
        if let block = open.last { throw ScriptError(line: block.line, "the '{' on this line is never closed with '}'") }
        guard !bots.isEmpty else { throw ScriptError(line: lastLine, "no bots: define one with 'bot NAME [ROOM] {'") }
        return Script(bots: bots)
    }

    // MARK: Pieces

    /// The words of a block header before its final `{`.
    static func blockHeader(_ rest: Substring, line: Int, usage: String) throws(ScriptError) -> [String] {
        guard rest.hasSuffix("{") else { throw ScriptError(line: line, "expected '\(usage)' (the '{' ends the line)") }
        return rest.dropLast().split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
    }

    static func repeatCount(_ rest: Substring, line: Int) throws(ScriptError) -> Int? {
        let words = try blockHeader(rest, line: line, usage: "repeat N {")
        guard words.count == 1 else { throw ScriptError(line: line, "expected 'repeat N {' or 'repeat forever {'") }
        if words[0] == "forever" { return nil }
        guard let times = Int(words[0]), (1...1_000_000).contains(times) else {
            throw ScriptError(line: line, "repeat count must be a whole number from 1 to 1000000 or 'forever', not '\(words[0])'")
        }
        return times
    }

    static func room(_ word: some StringProtocol, line: Int) throws(ScriptError) -> String {
        guard let room = ChatValidation.normalizeRoom(String(word)) else {
            throw ScriptError(line: line, "'\(word)' is not a valid room (1 to 32 of a-z 0-9 _ -, starting with a letter or digit)")
        }
        return room
    }

    static func nick(_ word: some StringProtocol, line: Int) throws(ScriptError) -> String {
        guard ChatValidation.isValidNick(String(word)) else { throw ScriptError(line: line, "'\(word)' is not a valid nick") }
        return String(word)
    }

    static func duration(_ word: some StringProtocol, line: Int) throws(ScriptError) -> DurationRange {
        guard let duration = DurationRange(parsing: word) else {
            throw ScriptError(line: line, "'\(word)' is not a duration (such as 500ms, 2s, 1.5s, 1m, or a range 1s..3s)")
        }
        return duration
    }
}
