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

    /// Sends a presence event, or queues it until the client's presence stream exists.
    func sendPresence(_ payload: SharedPayload, to session: ClientSession, into out: inout [ServerAction]) {
        if session.hasPresenceStream {
            out.append(.send(session.id, .presence, payload, live: true))
        } else {
            session.pendingPresence.append(payload)
        }
    }

    /// Sends one encoding of `message` on the chat stream of every member of `room` but `excluded`.
    func broadcast(_ message: ChatMessage, toMembersOf room: String, except excluded: ClientID? = nil, into out: inout [ServerAction]) {
        guard let members = rooms[room]?.members else { return }
        let payload = SharedPayload(line: message)
        out.reserveCapacity(out.count + members.count)
        for member in members where member != excluded {
            guard let session = clients[member] else { continue }
            sendChat(payload, to: session, into: &out)
        }
    }

    /// The `error` reply to a failed request; `id` echoes the request's id.
    func sendError(_ code: ErrorCode, _ text: String, id: String? = nil, to session: ClientSession, into out: inout [ServerAction]) {
        sendChat(.error(code: code, text: text, id: id), to: session, into: &out)
        out.append(.log(.debug, "error reply", ["client": String(session.id), "code": code.rawValue, "text": text]))
    }

    func sendError(_ error: ChatValidationError, id: String? = nil, to session: ClientSession, into out: inout [ServerAction]) {
        sendError(error.errorCode, error.reason, id: id, to: session, into: &out)
    }

    /// Log details naming a client.
    func logFields(_ session: ClientSession, _ extra: [String: String] = [:]) -> [String: String] {
        var fields = extra
        fields["client"] = String(session.id)
        if session.phase == .active {
            fields["nick"] = session.nick
            fields["peer"] = session.peer
        }
        if session.isLegacy { fields["alpn"] = "chat" }
        return fields
    }
}
