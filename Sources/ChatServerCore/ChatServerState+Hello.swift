import ChatProtocol

/// A new connection and its first valid `join`, the hello (PROTOCOL.md section 3).
extension ChatServerState {
    /// A QUIC connection completed its handshake. `legacy` is ALPN `chat`; `datagrams` is
    /// whether the peer accepts DATAGRAM frames (advertised a non-zero size).
    public func connected(_ client: ClientID, legacy: Bool, datagrams: Bool, now: Int64) -> [ServerAction] {
        guard clients[client] == nil else {
            return [.log(.warning, "connection id reused; ignored", ["client": String(client)])]
        }
        let session = ClientSession(
            id: client, isLegacy: legacy, acceptsDatagrams: datagrams, configuration: configuration, now: now)
        clients[client] = session
        return [.log(.debug, "connected", logFields(session, ["datagrams": String(datagrams)]))]
    }

    /// The first `join`: on success the client is registered under its peer id and nick,
    /// gets `welcome`, then joins the room. A `join` that fails validation gets an `error`
    /// and leaves the client waiting for its hello.
    func handleHello(_ join: ChatMessage, from session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        guard ChatValidation.isValidNick(join.sender) else {
            sendError(.badNick, id: join.id, to: session, into: &out)
            return
        }
        guard let room = ChatValidation.normalizeRoom(join.roomOrDefault) else {
            sendError(.badRoom, id: join.id, to: session, into: &out)
            return
        }
        let peer: String
        if let claimed = join.peer {
            guard ChatValidation.isValidPeerID(claimed) else {
                sendError(.badField, "peer must be a UUID", id: join.id, to: session, into: &out)
                return
            }
            // Either case is valid; one spelling keeps `abc…` and `ABC…` the same peer. The
            // `welcome` still answers the id as the client sent it.
            peer = claimed.uppercased()
        } else {
            peer = RandomPeerID.make()
        }

        let earlyStatus = session.statusBeforeHello
        session.statusBeforeHello = nil
        if let previousID = activeChatStreams[peer], let previous = clients[previousID] {
            takeOver(from: previous, by: session, into: &out)
        } else {
            register(session, nick: ChatValidation.firstFreeNick(for: join.sender) { activeSession(forNick: $0) != nil }, peer: peer)
            // A new user starts with the status it sent early; the join announces it.
            session.status = earlyStatus ?? .online
        }
        sendChat(.welcome(nick: session.nick, peer: join.peer ?? session.peer, serverName: configuration.serverName), to: session, into: &out)
        out.append(.log(.info, "hello", logFields(session, ["wanted": join.sender])))
        if let earlyStatus {
            // A taking-over connection announces a change, as a `status` after the hello would.
            changeStatus(of: session, to: earlyStatus, into: &out)
        }
        enter(room, since: join.since, id: join.id, session: session, now: now, into: &out)
    }

    private func register(_ session: ClientSession, nick: String, peer: String) {
        session.phase = .active
        session.nick = nick
        session.peer = peer
        clientsByNickKey[ChatValidation.nickKey(nick)] = session.id
        activeChatStreams[peer] = session.id
        if session.hasPresenceStream { activePresenceStreams[peer] = session.id }
    }

    /// The same peer said hello on a newer connection: the old one is closed with REPLACED
    /// and the new one inherits its nick, rooms and status, without `left` or `status` events,
    /// since for everyone else the user never went away.
    private func takeOver(from previous: ClientSession, by session: ClientSession, into out: inout [ServerAction]) {
        out.append(.close(previous.id, .replaced, reason: "replaced by a newer connection"))
        out.append(.log(.info, "close", logFields(previous, ["code": CloseCode.replaced.name, "by": String(session.id)])))
        clients[previous.id] = nil
        register(session, nick: previous.nick, peer: previous.peer)
        session.status = previous.status
        session.rooms = previous.rooms
        if !session.hasPresenceStream, activePresenceStreams[previous.peer] == previous.id {
            activePresenceStreams[previous.peer] = nil
        }
        for room in previous.rooms {
            rooms[room]?.members[previous.id] = nil
            rooms[room]?.members[session.id] = session
        }
    }
}
