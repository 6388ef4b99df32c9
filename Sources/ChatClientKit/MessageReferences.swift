import ChatProtocol

/// What `/edit`, `/redact`, `/react`, `/unreact` and `/reply` ask for (PROTOCOL.md section 15),
/// as typed: N is the message's number, its `seq` in the room or conversation (shown beside each
/// message by `/numbers` in the full-screen client, and in line mode once the server offers
/// edits); nil takes the default of each command.
public enum MessageRequest: Equatable, Sendable {
    /// `/edit [N] TEXT`: by default the newest own message of the buffer.
    case edit(Int64?, text: String)
    /// `/redact [N] [REASON]`: by default the newest own message of the buffer.
    case redact(Int64?, reason: String)
    /// `/react [N] EMOJI` (`added`) and `/unreact [N] EMOJI`: by default the newest message.
    case react(Int64?, String, added: Bool)
    /// `/reply N TEXT`.
    case reply(Int64, text: String)
}

/// Where a message request goes: the room or the private conversation shown.
public enum MessageTarget: Equatable, Sendable {
    case room(String)
    case conversation(String)

    /// One string per place: `#room`, `@nick` (nicks compared as the protocol compares them).
    public var key: String {
        switch self {
        case .room(let room): "#" + room
        case .conversation(let nick): "@" + ChatValidation.nickKey(nick)
        }
    }
}

/// A message of the buffer shown, as far as a request about it needs to know.
public struct ShownMessage: Equatable, Sendable {
    public var seq: Int64
    public var isOwn: Bool
    public var isRedacted: Bool

    public init(seq: Int64, isOwn: Bool, isRedacted: Bool = false) {
        self.seq = seq
        self.isOwn = isOwn
        self.isRedacted = isRedacted
    }
}

/// Turns a ``MessageRequest`` into the request the server gets, or the reason it is not sent:
/// the rules both modes follow, checked before anything is sent (a server that does not offer the
/// feature, a message that is not shown, someone else's message to edit, a reaction the protocol
/// refuses).
public enum MessageReferences {
    /// The request for `request` about the messages `shown` (oldest first) of `target`, with
    /// message id `id`; `features` are those the server's `welcome` listed. `ownPending`: an own
    /// message newer than those shown waits for its `ack` (and its number), so a default that
    /// means "my newest" is not taken to mean the one before it.
    public static func message(for request: MessageRequest, in target: MessageTarget, shown: [ShownMessage], features: Set<String>,
                               id: String, ownPending: Bool = false) -> Result<ChatMessage, CommandError> {
        switch request {
        case .edit(let number, let text):
            guard features.contains(ServerFeature.edits) else { return .failure(unsupported("edits")) }
            if let problem = textProblem(text) { return .failure(.message(problem)) }
            let found: ShownMessage
            switch pick(number, in: shown, own: true, doing: "edit", ownPending: ownPending) {
            case .success(let message): found = message
            case .failure(let error): return .failure(error)
            }
            guard found.isOwn else { return .failure(.message("message \(found.seq) is not yours: only its author can edit it")) }
            return .success(build(.edit, text: text, ref: found.seq, in: target, id: id))
        case .redact(let number, let reason):
            guard features.contains(ServerFeature.edits) else { return .failure(unsupported("redactions")) }
            let found: ShownMessage
            switch pick(number, in: shown, own: true, doing: "remove", ownPending: ownPending) {
            case .success(let message): found = message
            case .failure(let error): return .failure(error)
            }
            if case .conversation = target, !found.isOwn {
                return .failure(.message("message \(found.seq) is not yours: in a private conversation only its author can remove it"))
            }
            return .success(build(.redact, text: reason, ref: found.seq, in: target, id: id))
        case .react(let number, let value, let added):
            guard features.contains(ServerFeature.reactions) else { return .failure(unsupported("reactions")) }
            guard ChatValidation.isValidReaction(value) else {
                return .failure(.message("a reaction is 1 to \(ChatLimits.maxReactionBytes) bytes without spaces: an emoji, +1"))
            }
            switch pick(number, in: shown, own: false, doing: added ? "react to" : "take a reaction from") {
            case .success(let found): return .success(build(added ? .react : .unreact, text: value, ref: found.seq, in: target, id: id))
            case .failure(let error): return .failure(error)
            }
        case .reply(let number, let text):
            guard features.contains(ServerFeature.edits) else { return .failure(unsupported("replies")) }
            if let problem = textProblem(text) { return .failure(.message(problem)) }
            switch pick(number, in: shown, own: false, doing: "reply to") {
            case .success(let found):
                var message: ChatMessage
                switch target {
                case .room(let room): message = .msg(room: room, text: text, id: id)
                case .conversation(let nick): message = .dm(to: nick, text: text, id: id)
                }
                message.ref = found.seq
                return .success(message)
            case .failure(let error): return .failure(error)
            }
        }
    }

    /// The message numbered `number`, or by default the newest (own, when `own`) not removed.
    static func pick(_ number: Int64?, in shown: [ShownMessage], own: Bool, doing verb: String,
                     ownPending: Bool = false) -> Result<ShownMessage, CommandError> {
        guard let number else {
            if own && ownPending { return .failure(.message("your newest message here is not acknowledged yet: try again once it is")) }
            guard let newest = shown.last(where: { (!own || $0.isOwn) && !$0.isRedacted }) else {
                return .failure(.message(own ? "you have no message here to \(verb)" : "there is no message here to \(verb)"))
            }
            return .success(newest)
        }
        guard let found = shown.last(where: { $0.seq == number }) else {
            return .failure(.message("there is no message \(number) here (/numbers shows each message's number)"))
        }
        guard !found.isRedacted else { return .failure(.message("message \(number) was removed")) }
        return .success(found)
    }

    static func textProblem(_ text: String) -> String? {
        if text.isEmpty { return "the text is empty" }
        if text.utf8.count > ChatLimits.maxTextBytes { return "the text is over \(ChatLimits.maxTextBytes) bytes" }
        return nil
    }

    static func unsupported(_ what: String) -> CommandError {
        .message("this server does not support \(what) (a version 1.2 feature); nothing was sent")
    }

    static func build(_ type: MessageType, text: String, ref: Int64, in target: MessageTarget, id: String) -> ChatMessage {
        switch target {
        case .room(let room): ChatMessage(type: type.rawValue, text: text, room: room, id: id, ref: ref)
        case .conversation(let nick): ChatMessage(type: type.rawValue, text: text, id: id, with: nick, ref: ref)
        }
    }
}

/// The `features` of `welcome` that version 1.2 adds (PROTOCOL.md, "Version 1.2 additions").
public enum ServerFeature {
    public static let alwaysOn = "always-on"
    public static let edits = "edits"
    public static let reactions = "reactions"
    public static let search = "search"
}
