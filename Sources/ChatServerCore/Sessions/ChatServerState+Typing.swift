import ChatProtocol

/// Typing indicators: best effort, relayed to the other members of the room by datagram, or
/// on the presence stream to members without datagrams (PROTOCOL.md section 3, "Datagrams").
/// Everything wrong with a typing indicator is dropped silently: it is not worth a reply,
/// and it never counts toward the flood limit. A `room` of `@NICK` (no room name can start with
/// `@`) is typing in the private conversation with NICK: it goes to NICK alone, as `@SENDER`,
/// which is how every chat-client already names that conversation (issue 24, PROTOCOL.md
/// section 3 item 13).
extension ChatServerState {
    /// One DATAGRAM frame from a client: `{"type":"typing","room":…,"text":"start"|"stop"}`.
    public func receivedDatagram(_ bytes: [UInt8], from client: ClientID, now: Int64) -> [ServerAction] {
        guard let session = clients[client], let message = try? ChatMessage.decode(bytes) else { return [] }
        guard message.type == MessageType.typing.rawValue || message.type == MessageType.presence.rawValue else { return [] }
        var out: [ServerAction] = []
        relayTyping(message, from: session, now: now, into: &out)
        return out
    }

    /// Relays a `typing` (or the original client's `presence`, which means typing `start` in
    /// `lobby`) with `sender` stamped, within the client's typing rate.
    func relayTyping(_ message: ChatMessage, from session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        guard session.phase == .active else { return }
        let isLegacyPresence = message.type == MessageType.presence.rawValue
        let roomName = isLegacyPresence ? ChatLimits.defaultRoom : message.roomOrDefault
        let text = isLegacyPresence ? "start" : message.text
        if !isLegacyPresence, let other = message.room, other.hasPrefix(Self.privateTypingPrefix) {
            return relayPrivateTyping(to: String(other.dropFirst(Self.privateTypingPrefix.count)), text: text, from: session, now: now, into: &out)
        }
        guard text == "start" || text == "stop",
            let room = ChatValidation.normalizeRoom(roomName), session.isMember(of: room),
            let entry = rooms[room], entry.members.count > 1 || !entry.remote.records.isEmpty
        else { return }
        guard session.typingBucket.take(now: now) else {
            statistics.typingDropped += 1
            return
        }

        let relayed = ChatMessage.typing(room: room, isTyping: text == "start", sender: session.nick)
        // Members of other nodes get it through Redis (published, never stored: best effort).
        if !entry.remote.records.isEmpty { out.append(.publishTyping(room: room, SharedPayload(datagram: relayed))) }
        relayTypingLocally(relayed, in: room, except: session.id, into: &out)
    }

    static let privateTypingPrefix = "@"

    /// Typing in a private conversation: to the other side's connection on this node alone (a
    /// nick held through another node gets none: best effort), within the typing rate.
    private func relayPrivateTyping(to nick: String, text: String, from session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        guard text == "start" || text == "stop", let recipient = activeSession(forNick: nick), recipient.id != session.id else { return }
        guard session.typingBucket.take(now: now) else {
            statistics.typingDropped += 1
            return
        }
        let relayed = ChatMessage.typing(room: Self.privateTypingPrefix + session.nick, isTyping: text == "start", sender: session.nick)
        var datagram: SharedPayload?
        var line: SharedPayload?
        if let action = typingDelivery(relayed, to: recipient, datagram: &datagram, line: &line) { out.append(action) }
    }

    /// A typing indicator of a user of another node (a shared store), for this node's members.
    public func remoteTyping(room: String, payload: [UInt8], now: Int64) -> [ServerAction] {
        guard rooms[room] != nil, let message = try? ChatMessage.decode(payload), message.type == MessageType.typing.rawValue,
              message.room == room, !isLocalMember(ChatValidation.nickKey(message.sender), of: room) else { return [] }
        var out: [ServerAction] = []
        relayTypingLocally(message, in: room, except: nil, into: &out)
        return out
    }

    private func relayTypingLocally(_ relayed: ChatMessage, in room: String, except sender: ClientID?, into out: inout [ServerAction]) {
        guard let members = rooms[room]?.members else { return }
        var datagram: SharedPayload?
        var line: SharedPayload?
        for (member, other) in members where member != sender {
            if let action = typingDelivery(relayed, to: other, datagram: &datagram, line: &line) { out.append(action) }
        }
    }

    /// A relayed typing indicator for one member: a datagram, or a line on the presence stream
    /// for a member without datagrams; nothing for one without a presence stream (a stale typing
    /// hint is worthless queued). Each encoding is made once and shared.
    private func typingDelivery(_ relayed: ChatMessage, to other: ClientSession, datagram: inout SharedPayload?,
                                line: inout SharedPayload?) -> ServerAction? {
        if other.acceptsDatagrams {
            let payload = datagram ?? SharedPayload(datagram: relayed)
            datagram = payload
            return .datagram(other.id, payload)
        }
        guard other.hasPresenceStream else { return nil }
        let payload = line ?? SharedPayload(line: relayed)
        line = payload
        return .send(other.id, .presence, payload, live: true)
    }
}
