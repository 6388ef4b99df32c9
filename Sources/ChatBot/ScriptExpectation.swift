import ChatProtocol

/// `expect [KIND] [from NICK] [PATTERN] [within DURATION]`: a message the bot must receive (or
/// must have received since its last expectation) in time, or the run fails.
struct ScriptExpectation: Equatable, Sendable, CustomStringConvertible {
    enum Kind: String, Sendable, CaseIterable {
        /// A room `msg` or a `dm`: the default.
        case chat
        case msg
        case dm
        /// An `error` from the server; the pattern sees `code text`.
        case error
        /// A typing indicator; the pattern sees `start` or `stop`.
        case typing
        // Accounts and moderation (PROTOCOL.md sections 7 and 8); the pattern sees what
        // ``ScriptExpectation/matchedText(of:)`` gives.
        case account, topic, kicked, banned, unbanned, op, deop, mode, invite, whois, rooms
        /// A shared file (section 9); the pattern sees its name.
        case file
        /// Someone joined or left a room (the pattern sees the room, and for `left` the reason:
        /// `lobby node-lost`).
        case joined, left
        // Version 1.2 (sections 13 to 15): the pattern sees the text (the new text, the reason,
        // the reaction; `away`: the reason), for `read` the room (or account) and the marker
        // (`lobby 12`), for `found` the texts of the events found, one per line.
        case edit, redact, react, unreact, read, found, away
    }

    static let defaultTimeoutMilliseconds: UInt64 = 5000

    var kind = Kind.chat
    /// A nick, or the name of another bot of the script (then that bot's assigned nick).
    var from: String?
    var pattern = TextPattern.anything
    var timeoutMilliseconds = ScriptExpectation.defaultTimeoutMilliseconds

    /// Whether `message` satisfies this expectation; `senderNick` is `from` resolved to a nick.
    func matches(_ message: ChatMessage, senderNick: String?) -> Bool {
        guard message.replay != true else { return false }
        switch kind {
        case .chat: guard message.type == "msg" || message.type == "dm" else { return false }
        default: guard message.type == kind.rawValue else { return false }
        }
        if let senderNick, ChatValidation.nickKey(senderNick) != ChatValidation.nickKey(message.sender) { return false }
        return pattern.matches(matchedText(of: message))
    }

    /// What a pattern is matched against: the text, and for some kinds more (`error`: `code text`;
    /// `kicked`, `banned`, `unbanned`, `op`, `deop`: `to text`; `mode`: the mode; `invite`: the room;
    /// `account`: `account text`, such as `alice registered`).
    func matchedText(of message: ChatMessage) -> String {
        switch kind {
        case .error: "\(message.code ?? "") \(message.text)"
        case .kicked, .banned, .unbanned, .op, .deop: "\(message.to ?? "") \(message.text)"
        case .mode: message.mode ?? ""
        case .invite: message.room ?? ""
        case .account: "\(message.account ?? "") \(message.text)"
        case .rooms: (message.rooms ?? []).map(\.room).joined(separator: " ")
        case .joined: message.room ?? ""
        case .left: "\(message.room ?? "") \(message.text)"
        case .read: "\(message.room ?? message.with ?? "") \(message.read.map(String.init) ?? "")"
        case .found: (message.events ?? []).map(\.text).joined(separator: "\n")
        case .away: message.text
        default: message.text
        }
    }

    var description: String {
        let what = kind == .chat ? "a msg or dm" : kind == .error ? "an error" : "a \(kind.rawValue)"
        let sender = from.map { " from \($0)" } ?? ""
        let text = pattern == .anything ? "" : " matching \(pattern)"
        return "\(what)\(sender)\(text) within \(DurationRange.format(timeoutMilliseconds))"
    }
}
