import ChatProtocol

/// One command line inside a block: `join`, `part`, `say`, `send-raw`, `dm`, `typing`, `wait`, `expect`, `quit`.
extension ScriptParser {
    static let commandNames = "join, part, say, send-raw, dm, typing, register, login, password, claim, topic, kick, ban, unban, "
        + "op, deop, mode, invite, upload, download, edit, redact, react, unreact, reply, read, search, wait, expect, repeat, quit"

    static func action(_ keyword: String, _ rest: Substring, line: Int) throws(ScriptError) -> ScriptAction {
        let words = rest.split(whereSeparator: { $0 == " " || $0 == "\t" })
        switch keyword {
        case "join":
            guard words.count == 1 else { throw ScriptError(line: line, "expected 'join ROOM'") }
            return .join(room: try room(words[0], line: line))
        case "part":
            guard words.count <= 1 else { throw ScriptError(line: line, "expected 'part [ROOM]'") }
            return .part(room: try words.first.map { word throws(ScriptError) in try room(word, line: line) })
        case "say":
            return .say(try text(rest, line: line, usage: "say TEXT"))
        case "send-raw":
            guard !rest.isEmpty else { throw ScriptError(line: line, "expected 'send-raw BYTES': the bytes are missing") }
            return .sendRaw(try rawBytes(rest, line: line))
        case "dm":
            guard let recipient = words.first, words.count >= 2 else { throw ScriptError(line: line, "expected 'dm NICK TEXT'") }
            let body = rest.dropFirst(recipient.count).trimmed
            return .directMessage(to: try nick(recipient, line: line), text: try text(body, line: line, usage: "dm NICK TEXT"))
        case "typing":
            guard words.count == 1, words[0] == "start" || words[0] == "stop" else {
                throw ScriptError(line: line, "expected 'typing start' or 'typing stop'")
            }
            return .typing(words[0] == "start")
        case "wait":
            guard words.count == 1 else { throw ScriptError(line: line, "expected 'wait DURATION' (such as 500ms, 2s, 1s..3s)") }
            return .wait(try duration(words[0], line: line))
        case "expect":
            return .expect(try expectation(rest, line: line))
        case "quit":
            guard words.isEmpty else { throw ScriptError(line: line, "'quit' takes nothing after it") }
            return .quit
        case "upload":
            return try upload(words.map(String.init), line: line)
        case "download":
            guard words.count <= 1 else { throw ScriptError(line: line, "expected 'download [FOLDER]'") }
            return .download(folder: words.first.map(String.init))
        default:
            if let request = try request(keyword, rest, words: words.map(String.init), line: line) { return .request(request) }
            if let action = try alwaysOnAction(keyword, rest, words: words.map(String.init), line: line) { return action }
            throw ScriptError(line: line, "unknown command '\(keyword)' (commands: bot, \(commandNames), })")
        }
    }

    /// `upload PATH [to NICK]` or `upload random SIZE [to NICK]` (SIZE in bytes, or with k, M or G
    /// for KiB, MiB, GiB).
    private static func upload(_ words: [String], line: Int) throws(ScriptError) -> ScriptAction {
        let usage = "expected 'upload PATH [to NICK]' or 'upload random SIZE [to NICK]' (SIZE such as 1000, 64k, 5M, 1G)"
        var words = words
        var recipient: String?
        if words.count >= 3, words[words.count - 2] == "to" {
            recipient = try nick(Substring(words[words.count - 1]), line: line)
            words.removeLast(2)
        }
        if words.count == 2, words[0] == "random" {
            guard let size = byteCount(words[1]) else { throw ScriptError(line: line, usage) }
            return .upload(path: nil, randomBytes: size, to: recipient)
        }
        guard words.count == 1 else { throw ScriptError(line: line, usage) }
        return .upload(path: words[0], randomBytes: nil, to: recipient)
    }

    /// `1000`, `64k`, `5M`, `1G` as bytes (binary multiples).
    static func byteCount(_ word: String) -> Int64? {
        let multipliers: [Character: Int64] = ["k": 1 << 10, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        if let last = word.last, let multiplier = multipliers[last], let count = Int64(word.dropLast()), count >= 0 {
            return count.multipliedReportingOverflow(by: multiplier).overflow ? nil : count * multiplier
        }
        return Int64(word).flatMap { $0 >= 0 ? $0 : nil }
    }

    /// The line's UTF-8 with each `\xHH` replaced by that byte; every other character is itself,
    /// so JSON escapes such as `\u001b` pass through to the server untouched.
    static func rawBytes(_ rest: Substring, line: Int) throws(ScriptError) -> [UInt8] {
        var bytes: [UInt8] = []
        var utf8 = rest.utf8[...]
        while let first = utf8.first {
            if first == UInt8(ascii: "\\"), utf8.dropFirst().first == UInt8(ascii: "x") {
                let digits = utf8.dropFirst(2).prefix(2)
                guard digits.count == 2, digits.allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit }),
                      let value = UInt8(String(decoding: digits, as: UTF8.self), radix: 16) else {
                    throw ScriptError(line: line, "'\\x' must be followed by two hex digits")
                }
                bytes.append(value)
                utf8 = utf8.dropFirst(4)
            } else {
                bytes.append(first)
                utf8 = utf8.dropFirst()
            }
        }
        guard bytes.count < ChatLimits.maxStreamMessageBytes else {
            throw ScriptError(line: line, "send-raw takes at most \(ChatLimits.maxStreamMessageBytes - 1) bytes")
        }
        return bytes
    }

    private static func text(_ rest: Substring, line: Int, usage: String) throws(ScriptError) -> String {
        guard !rest.isEmpty else { throw ScriptError(line: line, "expected '\(usage)': the text is missing") }
        guard rest.utf8.count <= ChatLimits.maxTextBytes else {
            throw ScriptError(line: line, "the text is longer than \(ChatLimits.maxTextBytes) bytes")
        }
        return String(rest)
    }

    /// `expect [chat|msg|dm|error|typing] [from NICK] ["text" | /regex/] [within DURATION]`.
    private static func expectation(_ rest: Substring, line: Int) throws(ScriptError) -> ScriptExpectation {
        let usage = "expected 'expect [KIND] [from NICK] [\"TEXT\" | /REGEX/] [within DURATION]' (KIND: "
            + ScriptExpectation.Kind.allCases.filter { $0 != .chat }.map(\.rawValue).joined(separator: ", ") + ")"
        guard var tokens = ScriptToken.split(rest) else {
            throw ScriptError(line: line, "a quote or slash is never closed; \(usage)")
        }
        var expectation = ScriptExpectation()
        if case .word(let word) = tokens.first, let kind = ScriptExpectation.Kind(rawValue: word) {
            expectation.kind = kind
            tokens.removeFirst()
        }
        var index = 0
        var hasPattern = false
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            switch token {
            case .word("from") where index < tokens.count && expectation.from == nil:
                guard case .word(let sender) = tokens[index] else { throw ScriptError(line: line, usage) }
                expectation.from = try nick(sender, line: line)
                index += 1
            case .word("within") where index < tokens.count:
                guard case .word(let word) = tokens[index] else { throw ScriptError(line: line, usage) }
                let timeout = try duration(word, line: line)
                guard timeout.minimumMilliseconds == timeout.maximumMilliseconds else {
                    throw ScriptError(line: line, "'within' takes one duration, not a range")
                }
                expectation.timeoutMilliseconds = timeout.minimumMilliseconds
                index += 1
            case .quoted(let part) where !hasPattern:
                guard !part.isEmpty else { throw ScriptError(line: line, "an empty \"\" matches everything; leave it out") }
                expectation.pattern = .substring(part)
                hasPattern = true
            case .regex(let source) where !hasPattern:
                do {
                    _ = try Regex(source)
                } catch {
                    throw ScriptError(line: line, "/\(source)/ is not a valid regular expression: \(error)")
                }
                expectation.pattern = .regex(source)
                hasPattern = true
            default:
                throw ScriptError(line: line, "unexpected \(describe(token)) in expect; \(usage)")
            }
        }
        return expectation
    }

    private static func describe(_ token: ScriptToken) -> String {
        switch token {
        case .word(let word): "'\(word)'"
        case .quoted(let text): "second text \"\(text)\""
        case .regex(let source): "second pattern /\(source)/"
        }
    }

}
