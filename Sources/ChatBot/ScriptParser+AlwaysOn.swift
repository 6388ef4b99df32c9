import ChatProtocol

/// The version 1.2 commands of a bot (PROTOCOL.md sections 14 and 15): `edit TARGET TEXT`,
/// `redact TARGET [REASON]`, `react TARGET EMOJI`, `unreact TARGET EMOJI`, `reply TARGET TEXT`,
/// `read [TARGET]` and `search WORDS`, in the current room. TARGET is `last`, `mine` or a seq.
extension ScriptParser {
    /// The action a command line makes, or nil when `keyword` is none of these.
    static func alwaysOnAction(_ keyword: String, _ rest: Substring, words: [String], line: Int) throws(ScriptError) -> ScriptAction? {
        if keyword == "search" {
            do {
                _ = try ChatValidation.searchQuery(String(rest))
            } catch {
                throw ScriptError(line: line, "expected 'search WORDS': 1 to \(ChatLimits.maxSearchWords) words in at most \(ChatLimits.maxSearchTextBytes) bytes")
            }
            return .search(String(rest))
        }
        guard let verb = ScriptReference.Verb(rawValue: keyword) else { return nil }
        let usage = switch verb {
        case .edit: "edit TARGET TEXT"
        case .redact: "redact TARGET [REASON]"
        case .react, .unreact: "\(keyword) TARGET EMOJI"
        case .reply: "reply TARGET TEXT"
        case .read: "read [TARGET]"
        }
        let hint = "expected '\(usage)' (TARGET: last, mine or a seq)"
        if verb == .read, words.isEmpty { return .refer(ScriptReference(verb: .read, target: .last)) }
        guard let first = words.first, let target = target(first) else { throw ScriptError(line: line, hint) }
        let text = rest.dropFirst(first.count).trimmed
        switch verb {
        case .edit, .reply:
            guard !text.isEmpty, text.utf8.count <= ChatLimits.maxTextBytes else {
                throw ScriptError(line: line, "\(hint): the text is missing or longer than \(ChatLimits.maxTextBytes) bytes")
            }
        case .react, .unreact:
            guard words.count == 2, ChatValidation.isValidReaction(String(text)) else {
                throw ScriptError(line: line, "\(hint): a reaction is 1 to \(ChatLimits.maxReactionBytes) bytes without spaces")
            }
        case .redact:
            break
        case .read:
            guard words.count == 1 else { throw ScriptError(line: line, hint) }
        }
        return .refer(ScriptReference(verb: verb, target: target, text: String(text)))
    }

    private static func target(_ word: String) -> ScriptReference.Target? {
        switch word {
        case "last": .last
        case "mine": .mine
        default: Int64(word).flatMap { $0 > 0 ? .seq($0) : nil }
        }
    }
}
