import ChatProtocol

/// `rooms` and `whois` (PROTOCOL.md section 8): who and where, without anything an invite-only
/// room would rather keep to itself.
extension ChatServerState {
    /// The rooms with members that are not invite-only, most members first (then by name), at
    /// most ``ChatLimits/maxRoomsListed``; one listing shared by every asker (``RoomDirectory``).
    func handleRoomList(_ request: ChatMessage, from session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        let answer = roomDirectory.answer(now: now, changes: directoryChanges) {
            let listed = rooms.values.compactMap { room -> RoomListing? in
                let settings = policies.rooms[room.name]
                guard settings?.modes.contains(.invite) != true else { return nil }
                return RoomListing(room: room.name, members: room.members.count, topic: settings?.topic?.text ?? "")
            }
            let top = listed.sorted { $0.members != $1.members ? $0.members > $1.members : $0.room < $1.room }
                .prefix(ChatLimits.maxRoomsListed)
            return SharedPayload(line: ChatMessage(type: MessageType.rooms.rawValue, rooms: Array(top)))
        }
        sendChat(answer, to: session, into: &out)
    }

    /// A connected nick: its account, status and the rooms it is in that the asker shares or that
    /// are not invite-only. An account that is not connected: its name, `offline`, no rooms.
    func handleWhois(_ request: ChatMessage, from session: ClientSession, into out: inout [ServerAction]) {
        let name = request.to ?? ""
        if let user = activeSession(forNick: name) {
            let visible = user.rooms.array.filter { room in
                session.isMember(of: room) || policies.rooms[room]?.modes.contains(.invite) != true
            }
            let listings = visible.sorted().map { room in
                RoomListing(room: room, members: rooms[room]?.members.count ?? 0, topic: policies.rooms[room]?.topic?.text ?? "")
            }
            var answer = ChatMessage(type: MessageType.whois.rawValue, text: user.status.rawValue, sender: user.nick, rooms: listings)
            answer.account = user.account
            sendChat(answer, to: session, into: &out)
            return
        }
        switch lookUpAccount(name, for: request, from: session, into: &out) {
        case .unreadable:
            return
        case .found(let account):
            var answer = ChatMessage(type: MessageType.whois.rawValue, text: PresenceStatus.offline.rawValue, sender: account.name, rooms: [])
            answer.account = account.name
            sendChat(answer, to: session, into: &out)
            return
        case .none:
            break
        }
        sendError(.noSuchUser, "no user or account '\(ChatValidation.excerpt(name))'", id: request.id, to: session, into: &out)
    }
}
