import ChatProtocol

/// The presence stream: statuses, rosters, and the queue that holds them until the client's
/// stream 4 exists (PROTOCOL.md section 2).
extension ChatServerState {
    /// The client's presence stream now exists (its first bytes arrived): flushes the queued
    /// presence events. Calling `received(_:from:on: .presence,now:)` implies this too.
    public func presenceStreamOpened(_ client: ClientID, now: Int64) -> [ServerAction] {
        guard let session = clients[client] else { return [] }
        var out: [ServerAction] = []
        openPresenceStream(of: session, into: &out)
        return out
    }

    func openPresenceStream(of session: ClientSession, into out: inout [ServerAction]) {
        guard !session.hasPresenceStream else { return }
        session.hasPresenceStream = true
        if session.phase == .active { activePresenceStreams[session.peer] = session.id }
        if session.pendingPresence.droppedCount > 0 {
            out.append(.log(.debug, "presence queue overflowed", logFields(session, ["dropped": String(session.pendingPresence.droppedCount)])))
        }
        // Not live traffic: a backlog the client let grow is its own doing, bounded by the
        // backlog's limits, and must not pass for a slow consumer the moment it is flushed.
        for payload in session.pendingPresence.removeAll() {
            out.append(.send(session.id, .presence, payload, live: false))
        }
    }

    /// A client's `status`. Before the hello it is remembered for the hello; after it, a
    /// change goes to everyone who shares a room, not back to the sender, and a repeat of the
    /// current status (like the `online` every client opens its presence stream with) is silent.
    func handleStatus(_ message: ChatMessage, from session: ClientSession, into out: inout [ServerAction]) {
        guard let status = PresenceStatus(rawValue: message.text) else {
            sendError(.badField, "status is online, away or offline", id: message.id, to: session, into: &out)
            return
        }
        guard session.phase == .active else {
            session.statusBeforeHello = status
            return
        }
        changeStatus(of: session, to: status, into: &out)
    }

    /// A user's `status` as others receive it, with its `account` when logged in.
    func statusMessage(of session: ClientSession, as status: PresenceStatus? = nil) -> ChatMessage {
        var message = ChatMessage.status((status ?? session.status).rawValue, sender: session.nick)
        message.account = session.account
        return message
    }

    func changeStatus(of session: ClientSession, to status: PresenceStatus, into out: inout [ServerAction]) {
        guard status != session.status else { return }
        session.status = status
        out.append(.publishMember(memberRecord(of: session), rooms: session.rooms.array))
        let payload = SharedPayload(line: statusMessage(of: session))
        for mate in roomMates(of: session) {
            if let other = clients[mate] { sendStatus(payload, of: session, to: other, into: &out) }
        }
    }
}
