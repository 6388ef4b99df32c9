import ChatProtocol

/// Clients going away: by their own doing or the transport's (`disconnected`), or closed by
/// the server (protocol error, flooding, kick, shutdown).
extension ChatServerState {
    /// The connection is gone. `reason` becomes the `text` of the `left` events: `quit`,
    /// `timeout`, `closed`, `slow-consumer`, ... (empty means `closed`). Does nothing for a
    /// client the core already closed or that was replaced.
    public func disconnected(_ client: ClientID, reason: String, now: Int64) -> [ServerAction] {
        guard let session = clients[client] else { return [] }
        let leftText = reason.isEmpty ? "closed" : reason
        var out: [ServerAction] = [.log(.info, "disconnect", logFields(session, ["reason": leftText]))]
        depart(session, leftText: leftText, now: now, into: &out)
        return out
    }

    /// `quit` with a message (issue 24): the server closes the connection with NO_ERROR, as the
    /// client would, and every room's `left` says `quit: MESSAGE` (control characters out, cut
    /// at ``ChatLimits/maxQuitMessageBytes``; plain `quit` for none).
    func handleQuit(_ message: ChatMessage, from session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        var text = (try? ChatValidation.sanitizeText(message.text.replacing("\n", with: " "))) ?? ""
        while text.utf8.count > ChatLimits.maxQuitMessageBytes { text.removeLast() }
        close(session, with: .noError, reason: "quit", leftText: text.isEmpty ? "quit" : "quit: " + text, now: now, into: &out)
    }

    /// The operator console removes a user: closed with KICKED, `left` text `kicked`. The
    /// terminal's line (`kicked NICK`, or why not) is a ``ServerAction/consoleLine(_:)``.
    public func kick(nick: String, reason: String, now: Int64) -> [ServerAction] {
        guard let session = activeSession(forNick: nick) else {
            // The user may be on another node: that node kicks it.
            var out: [ServerAction] = []
            beginRemoteKick(nick: nick, reason: reason, by: configuration.serverName, requester: nil, into: &out)
            return out
        }
        var out: [ServerAction] = []
        close(session, with: .kicked, reason: reason.isEmpty ? "kicked by an operator" : reason, now: now, into: &out)
        out.append(.consoleLine("kicked \(session.nick)"))
        return out
    }

    /// The server is stopping: every client is closed with SHUTDOWN. One server stores the `left`
    /// events, in one transaction (one round of its store), so that history after a restart shows
    /// who was in a room, but does not send them: every recipient here is being closed anyway.
    /// A node of several (`handsOverClients`) stores and releases nothing: it hands its clients
    /// over (issue 26, item 4): they reconnect to another node as the same device and keep their
    /// nicks and rooms without a `left` or a `joined`; the node that reaps this one after its
    /// handover takes out those that did not.
    public func shutdown(now: Int64, handsOverClients: Bool = false) -> [ServerAction] {
        var out: [ServerAction] = []
        var drafts: [RoomEventDraft] = []
        for session in clients.values.sorted(by: { $0.id < $1.id }) {
            out.append(.close(session.id, .shutdown, reason: "server shutting down"))
            guard session.phase == .active, !handsOverClients else { continue }
            for room in session.rooms {
                drafts.append(RoomEventDraft(event: StoredEvent(room: room, seq: 0, ts: now, kind: .left, sender: session.nick,
                                                                text: "shutdown"), purpose: .notice,
                                             membership: .remove([ChatValidation.nickKey(session.nick)])))
            }
        }
        out.append(.log(.info, "shutdown", ["clients": String(clients.count)]))
        clients = [:]
        activeChatStreams = [:]
        activePresenceStreams = [:]
        clientsByNickKey = [:]
        rooms = [:]
        // Nobody is left to send them to: stored only.
        record(drafts, now: now, into: &out)
        return out
    }

    /// Closes a client for a reason the core decided; the `left` text is the close code's
    /// name in lower case with dashes (`protocol-error`, `flooding`, `kicked`).
    func close(_ session: ClientSession, with code: CloseCode, reason: String, leftText: String? = nil, now: Int64,
               into out: inout [ServerAction]) {
        // Messages of the client may still wait for the store: their acks go out first, and the
        // connection closes after the last.
        let waiting = pendingAppends.values.count { $0.origin == session.id }
        // What it got in each room: its acks held for their place may go only right after that.
        var through: [String: Int64] = [:]
        for room in session.rooms.array {
            guard let delivered = deliveredSequence[room] else { continue }
            through[room] = session.catchUp?.room == room ? session.catchUp!.sentThrough : delivered
        }
        releaseAcksOfClosing(session, through: &through, into: &out)
        if waiting > 0 { deferredCloses[session.id] = DeferredClose(code: code, reason: reason, waiting: waiting, through: through) }
        if waiting == 0 { out.append(.close(session.id, code, reason: reason)) }
        out.append(.log(.info, "close", logFields(session, ["code": code.name, "reason": reason])))
        depart(session, leftText: leftText ?? code.name.lowercased().replacing("_", with: "-"), now: now, into: &out)
    }

    /// Forgets the client; if it had said hello, its rooms get a stored `left` and everyone
    /// who shared a room with it gets `status` `offline`. O(rooms of the client + their members).
    private func depart(_ session: ClientSession, leftText: String, now: Int64, into out: inout [ServerAction]) {
        clients[session.id] = nil
        dropPasswordWork(of: session, into: &out)
        guard session.phase == .active else { return }
        let mates = roomMates(of: session)
        unregister(session)
        // Its nick and device are free for others (unless already taken over elsewhere).
        out.append(.releaseIdentity(peer: session.peer, client: session.id, nick: session.nick, andPeer: true))
        let joined = session.rooms.array
        session.rooms.removeAll()
        for room in joined {
            rooms[room]?.members[session.id] = nil
            rooms[room]?.catchingUp[session.id] = nil
        }
        let drafts = joined.map { room in
            RoomEventDraft(event: StoredEvent(room: room, seq: 0, ts: now, kind: .left, sender: session.nick, text: leftText),
                           origin: session, purpose: .departure, membership: .remove([ChatValidation.nickKey(session.nick)]))
        }
        record(drafts, now: now, into: &out)
        // Idle only once stored: a room forgotten as the longest idle must not come back into the
        // store with this `left`.
        for room in joined {
            settleRoom(room, into: &out)
        }
        let offline = SharedPayload(line: statusMessage(of: session, as: .offline))
        for mate in mates {
            if let other = clients[mate] { sendStatus(offline, of: session, to: other, into: &out) }
        }
    }

    func unregister(_ session: ClientSession) {
        let key = ChatValidation.nickKey(session.nick)
        if clientsByNickKey[key] == session.id { clientsByNickKey[key] = nil }
        if activeChatStreams[session.peer] == session.id { activeChatStreams[session.peer] = nil }
        if activePresenceStreams[session.peer] == session.id { activePresenceStreams[session.peer] = nil }
    }
}
