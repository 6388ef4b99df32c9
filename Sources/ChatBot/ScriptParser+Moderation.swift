import ChatProtocol

/// The account and moderation commands of a bot (PROTOCOL.md sections 7 and 8).
extension ScriptParser {
    /// The request a command line makes, or nil when `keyword` is none of these.
    static func request(_ keyword: String, _ rest: Substring, words: [String], line: Int) throws(ScriptError) -> ScriptRequest? {
        switch keyword {
        case "register":
            guard words.count <= 1 else { throw ScriptError(line: line, "expected 'register [PASSWORD]'") }
            return ScriptRequest(type: .register, scope: .none, password: try words.first.map { word throws(ScriptError) in try password(word, line: line) })
        case "login":
            guard words.count == 2 else { throw ScriptError(line: line, "expected 'login NAME PASSWORD'") }
            return ScriptRequest(type: .login, scope: .none, password: try password(words[1], line: line), account: try nick(words[0], line: line))
        case "password":
            guard words.count == 1 else { throw ScriptError(line: line, "expected 'password NEW'") }
            return ScriptRequest(type: .password, scope: .none, password: try password(words[0], line: line))
        case "claim":
            guard words.count <= 1 else { throw ScriptError(line: line, "expected 'claim [ROOM]'") }
            return ScriptRequest(type: .claim, scope: try words.first.map { word throws(ScriptError) in .room(try room(word, line: line)) } ?? .currentRoom)
        case "topic":
            return ScriptRequest(type: .topic, scope: .currentRoom, text: String(rest))
        case "kick", "ban":
            let server = words.first == "-server"
            let arguments = server ? Array(words.dropFirst()) : words
            guard let target = arguments.first else { throw ScriptError(line: line, "expected '\(keyword) [-server] NICK [REASON]'") }
            return ScriptRequest(type: keyword == "kick" ? .kick : .ban, scope: server ? .none : .currentRoom, target: try nick(target, line: line),
                                 text: arguments.dropFirst().joined(separator: " "))
        case "unban":
            let server = words.first == "-server"
            let arguments = server ? Array(words.dropFirst()) : words
            guard arguments.count == 1 else { throw ScriptError(line: line, "expected 'unban [-server] NAME'") }
            return ScriptRequest(type: .unban, scope: server ? .none : .currentRoom, target: try nick(arguments[0], line: line))
        case "op", "deop", "invite":
            guard words.count == 1 else { throw ScriptError(line: line, "expected '\(keyword) NICK'") }
            let type: MessageType = keyword == "op" ? .op : keyword == "deop" ? .deop : .invite
            return ScriptRequest(type: type, scope: .currentRoom, target: try nick(words[0], line: line))
        case "mode":
            guard words.count == 1, RoomModeChange(words[0]) != nil else {
                throw ScriptError(line: line, "expected 'mode +invite', '-invite', '+registered' or '-registered'")
            }
            return ScriptRequest(type: .mode, scope: .currentRoom, mode: words[0])
        default:
            return nil
        }
    }

    private static func password(_ word: String, line: Int) throws(ScriptError) -> String {
        guard ChatValidation.isAcceptablePassword(word) else { throw ScriptError(line: line, "a password is 8 to 256 bytes") }
        return word
    }
}
