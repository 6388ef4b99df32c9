import ChatProtocol

/// Typing indicators: best effort, relayed to the other members of the room by datagram, or
/// on the presence stream to members without datagrams (PROTOCOL.md section 3, "Datagrams").
/// Everything wrong with a typing indicator is dropped silently: it is not worth a reply,
/// and it never counts toward the flood limit.
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
        guard text == "start" || text == "stop",
            let room = ChatValidation.normalizeRoom(roomName), session.isMember(of: room),
            let members = rooms[room]?.members, members.count > 1,
            session.typingBucket.take(now: now)
        else { return }

        let relayed = ChatMessage.typing(room: room, isTyping: text == "start", sender: session.nick)
        var datagram: SharedPayload?
        var line: SharedPayload?
        for (member, other) in members where member != session.id {
            if other.acceptsDatagrams {
                let payload = datagram ?? SharedPayload(datagram: relayed)
                datagram = payload
                out.append(.datagram(member, payload))
            } else if other.hasPresenceStream {
                // Not queued for a missing presence stream: a stale typing hint is worthless.
                let payload = line ?? SharedPayload(line: relayed)
                line = payload
                out.append(.send(member, .presence, payload, live: true))
            }
        }
    }
}
