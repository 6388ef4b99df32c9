import ChatProtocol

/// Turning messages into `.send` actions: encode once, share the payload.
extension ChatServerState {
    /// Sends one message to one client on its chat stream.
    func sendChat(_ message: ChatMessage, to session: ClientSession, live: Bool = true, into out: inout [ServerAction]) {
        sendChat(SharedPayload(line: message), to: session, live: live, into: &out)
    }

    func sendChat(_ payload: SharedPayload, to session: ClientSession, live: Bool = true, into out: inout [ServerAction]) {
        // Stream 0 exists for the server only once the client sent on it; before that only an
        // error caused by presence-stream traffic could be due, and it is dropped.
        guard session.hasChatStream else { return }
        out.append(.send(session.id, .chat, payload, live: live))
    }

    /// Sends a presence event, or queues it until the client's presence stream exists; `key`
    /// names what it is about, so a newer event supersedes a queued one (``PresenceBacklog``).
    func sendPresence(_ payload: SharedPayload, key: PresenceBacklog.Key, to session: ClientSession, into out: inout [ServerAction]) {
        if session.hasPresenceStream {
            out.append(.send(session.id, .presence, payload, live: true))
        } else {
            session.pendingPresence.append(payload, key: key)
        }
    }

    /// The `status` of `user` to `session`.
    func sendStatus(_ payload: SharedPayload, of user: ClientSession, to session: ClientSession, into out: inout [ServerAction]) {
        sendPresence(payload, key: .status(nickKey: ChatValidation.nickKey(user.nick)), to: session, into: &out)
    }

    /// Sends one encoding of `message` on the chat stream of every member of `room` but `excluded`.
    func broadcast(_ message: ChatMessage, toMembersOf room: String, except excluded: ClientID? = nil, into out: inout [ServerAction]) {
        broadcast(SharedPayload(line: message), toMembersOf: room, except: excluded, into: &out)
    }

    func broadcast(_ payload: SharedPayload, toMembersOf room: String, except excluded: ClientID? = nil, into out: inout [ServerAction]) {
        guard let members = rooms[room]?.members else { return }
        out.reserveCapacity(out.count + members.count)
        for (member, session) in members where member != excluded {
            sendChat(payload, to: session, into: &out)
        }
    }

    /// The `error` reply to a failed request; `id` echoes the request's id when it is a valid
    /// message id (an id that breaks the rule is not sent back: it could be 60 KB of escapes).
    /// Client input quoted in `text` must go through ``ChatValidation/excerpt(_:)``.
    /// `room` names the room a room-scoped refusal is about (`banned`, `not-invited`, ...).
    func sendError(_ code: ErrorCode, _ text: String, id: String? = nil, room: String? = nil, stored: Bool? = nil,
                   to session: ClientSession, into out: inout [ServerAction]) {
        let echoedID = id.flatMap { ChatValidation.isValidMessageID($0) ? $0 : nil }
        statistics.errorsSent[code, default: 0] += 1
        var error = ChatMessage.error(code: code, text: text, id: echoedID, stored: stored)
        error.room = room
        sendChat(error, to: session, into: &out)
        out.append(.log(.debug, "error reply", ["client": String(session.id), "code": code.rawValue, "text": text]))
    }

    func sendError(_ error: ChatValidationError, id: String? = nil, to session: ClientSession, into out: inout [ServerAction]) {
        sendError(error.errorCode, error.reason, id: id, to: session, into: &out)
    }

    /// Log details naming a client. Never its peer id: that is the credential that takes a
    /// session over (REPLACED), so it must not reach a log.
    func logFields(_ session: ClientSession, _ extra: [String: String] = [:]) -> [String: String] {
        var fields = extra
        fields["client"] = String(session.id)
        if session.phase == .active {
            fields["nick"] = session.nick
        }
        if session.isLegacy { fields["alpn"] = "chat" }
        return fields
    }
}
