import ChatProtocol

/// Routing what arrives on a client's streams to the feature that handles it.
extension ChatServerState {
    /// One result of the client's ``ChatStreamDecoder`` for stream 0 (`.chat`) or 4 (`.presence`).
    public func received(_ event: ChatStreamEvent, from client: ClientID, on stream: ChatStreamKind, now: Int64) -> [ServerAction] {
        guard let session = clients[client] else { return [] }
        var out: [ServerAction] = []
        switch stream {
        case .chat: session.hasChatStream = true
        case .presence: openPresenceStream(of: session, into: &out)
        }
        switch event {
        case .fatal(let framing):
            let reason = framing == .tooLarge ? "message over \(ChatLimits.maxStreamMessageBytes) bytes" : "invalid UTF-8"
            close(session, with: .protocolError, reason: reason, now: now, into: &out)
        case .malformed(let error, let id):
            guard admitCountedMessage(from: session, id: id, now: now, into: &out) else { break }
            sendError(error.errorCode, error.reason, id: id, to: session, into: &out)
        case .message(let message):
            if stream == .presence, isTyping(message) {
                // Free up to the presence typing rate; beyond it, typing is a message like any
                // other for the flood limit (PROTOCOL.md section 12).
                guard session.presenceTypingBucket.take(now: now) || admitCountedMessage(from: session, id: nil, now: now, into: &out)
                else { break }
                relayTyping(message, from: session, now: now, into: &out)
                break
            }
            guard admitCountedMessage(from: session, id: message.id, now: now, into: &out) else { break }
            switch stream {
            case .chat: handleChatMessage(message, from: session, now: now, into: &out)
            case .presence: handlePresenceMessage(message, from: session, now: now, into: &out)
            }
        }
        return out
    }

    private func isTyping(_ message: ChatMessage) -> Bool {
        message.type == MessageType.typing.rawValue || message.type == MessageType.presence.rawValue
    }

    /// A chat-stream message that passed the flood limit (or waited for a password verdict).
    func handleChatMessage(_ message: ChatMessage, from session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        if holdWhileAwaiting(message, from: session, into: &out) { return }
        if prefetchAccounts(for: message, from: session, into: &out) { return }
        if session.phase == .awaitingHello {
            guard message.messageType == .join else {
                close(session, with: .protocolError, reason: "the first message must be join", now: now, into: &out)
                return
            }
            handleHello(message, from: session, now: now, into: &out)
            return
        }
        switch message.messageType {
        case .join: handleJoin(message, from: session, now: now, into: &out)
        case .msg: handleRoomMessage(message, from: session, now: now, into: &out)
        case .dm: handleDirectMessage(message, from: session, now: now, into: &out)
        case .nick: handleNickChange(message, from: session, now: now, into: &out)
        case .part: handlePart(message, from: session, now: now, into: &out)
        case .quit: handleQuit(message, from: session, now: now, into: &out)
        case .history: handleHistory(message, from: session, into: &out)
        case .register: handleRegister(message, from: session, now: now, into: &out)
        case .login: handleLogin(message, from: session, now: now, into: &out)
        case .password: handlePasswordChange(message, from: session, now: now, into: &out)
        case .certificate: handleCertificate(message, from: session, into: &out)
        case .claim: handleClaim(message, from: session, now: now, into: &out)
        case .topic: handleTopic(message, from: session, now: now, into: &out)
        case .mode: handleMode(message, from: session, now: now, into: &out)
        case .op, .deop: handleOperatorChange(message, from: session, now: now, into: &out)
        case .invite: handleInvite(message, from: session, now: now, into: &out)
        case .kick: handleKick(message, from: session, now: now, into: &out)
        case .ban: handleBan(message, from: session, now: now, into: &out)
        case .unban: handleUnban(message, from: session, now: now, into: &out)
        case .rooms: handleRoomList(message, from: session, now: now, into: &out)
        case .whois: handleWhois(message, from: session, into: &out)
        case .status, .typing, .presence:
            sendError(.unknownType, "'\(message.type)' belongs on the presence stream", id: message.id, to: session, into: &out)
        case .upload, .download:
            sendError(.unknownType, "'\(message.type)' opens a file stream of its own", id: message.id, to: session, into: &out)
        case .welcome, .ack, .joined, .left, .historyEnd, .error, .roster, .account, .kicked, .banned, .unbanned, .file:
            sendError(.unknownType, "'\(message.type)' is sent by the server only", id: message.id, to: session, into: &out)
        case nil, .read, .edit, .redact, .react, .unreact, .search, .found, .away:
            // Version 1.2's types are not offered yet (`welcome` does not list their features):
            // answered as a 1.1 server answers them.
            sendError(.unknownType, "unknown message type", id: message.id, to: session, into: &out)
        }
    }

    private func handlePresenceMessage(_ message: ChatMessage, from session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        switch message.messageType {
        case .status:
            handleStatus(message, from: session, into: &out)
        case .typing, .presence:
            relayTyping(message, from: session, now: now, into: &out)
        case .join, .msg, .dm, .nick, .part, .quit, .history, .register, .login, .password, .certificate, .claim, .topic, .mode, .op,
             .deop, .invite, .kick, .ban, .unban, .rooms, .whois:
            sendError(.unknownType, "'\(message.type)' belongs on the chat stream", id: message.id, to: session, into: &out)
        case .upload, .download:
            sendError(.unknownType, "'\(message.type)' opens a file stream of its own", id: message.id, to: session, into: &out)
        case .welcome, .ack, .joined, .left, .historyEnd, .error, .roster, .account, .kicked, .banned, .unbanned, .file:
            sendError(.unknownType, "'\(message.type)' is sent by the server only", id: message.id, to: session, into: &out)
        case nil, .read, .edit, .redact, .react, .unreact, .search, .found, .away:
            // Version 1.2's types are not offered yet (`welcome` does not list their features):
            // answered as a 1.1 server answers them.
            sendError(.unknownType, "unknown message type", id: message.id, to: session, into: &out)
        }
    }
}
