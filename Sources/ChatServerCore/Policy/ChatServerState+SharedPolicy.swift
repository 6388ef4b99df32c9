import ChatProtocol

/// With a shared store: room settings. They are cached for the rooms this node follows (read
/// with the members when it starts following, changed by the events that announce changes, on
/// every node) and read from the store for a join of any other room. A `banned` makes every node
/// read the room's settings again, so a guest banned by peer or address on another node leaves
/// too.
extension ChatServerState {
    /// Reads `room`'s settings and holds the connection's messages until they are there.
    func awaitSettings(of room: String, then wait: SettingsWait, session: ClientSession, into out: inout [ServerAction]) {
        session.awaitsRoomLog = true
        readRoomSettings(room, then: wait, into: &out)
    }

    func readRoomSettings(_ room: String, then wait: SettingsWait, into out: inout [ServerAction]) {
        nextSharedToken += 1
        pendingReads[nextSharedToken] = .settings(room, then: wait)
        out.append(.readRoomState(nextSharedToken, room: room))
    }

    func settingsRead(_ room: String, _ settings: RoomSettings, then wait: SettingsWait, now: Int64, into out: inout [ServerAction]) {
        let before = policies.rooms[room]
        policies.rooms[room] = settings
        switch wait {
        case .join(let client, let since, let id):
            guard let session = clients[client] else { return }
            session.awaitsRoomLog = false
            enter(room, since: since, id: id, session: session, now: now, settingsFresh: true, into: &out)
            releaseHeldMessages(of: session, now: now, into: &out)
        case .refresh:
            guard let entry = rooms[room] else { return }
            let newBans = settings.bans.byKey.values.filter { before?.bans.ban(labelled: $0.label) == nil }
            guard !newBans.isEmpty else { return }
            // Members of this node a ban through another node matches, and which its event did not
            // name (a guest matched by peer or address): they leave, as a ban's `left`.
            let banned = entry.members.values.filter { session in
                !isServerOperator(session) && newBans.contains { matches($0, session) }
            }.sorted { $0.id < $1.id }
            for session in banned {
                let key = ChatValidation.nickKey(session.nick)
                record([RoomEventDraft(event: StoredEvent(room: room, seq: 0, ts: now, kind: .left, sender: session.nick, text: "banned"),
                                       origin: nil, purpose: .notice, membership: .remove([key]))], now: now, into: &out)
                sendChat(ChatMessage(.left, text: "banned", sender: session.nick, room: room, ts: now), to: session, into: &out)
            }
            removeFromRoom(banned, room, into: &out)
        }
    }

    func settingsUnavailable(_ room: String, then wait: SettingsWait, into out: inout [ServerAction]) {
        guard case .join(let client, _, let id) = wait, let session = clients[client] else { return }
        session.awaitsRoomLog = false
        sendError(.unavailable, "room '\(room)' cannot be checked right now; try again", id: id, room: room, to: session, into: &out)
    }

    /// A delivered event's change of the room's settings, in the cache of every node: taken from
    /// the event where it says all (topic, modes, operators, a lifted ban), read again for a ban.
    func applyPolicy(of event: SharedRoomEvent, message: ChatMessage, into out: inout [ServerAction]) {
        let room = event.room
        guard policies.rooms[room] != nil else { return }
        switch event.kind {
        case .topic:
            policies.rooms[room]!.topic = message.text.isEmpty ? nil : RoomTopic(text: message.text, setBy: message.sender,
                                                                                ts: message.ts ?? 0)
        case .mode:
            if let change = message.mode.flatMap(RoomModeChange.init) { policies.rooms[room]!.apply(.mode(room: room, change.mode, on: change.isOn)) }
        case .op:
            guard let account = message.to else { return }
            policies.rooms[room]!.apply(message.text == "owner" ? .owner(room: room, account: account)
                                                              : .operatorAdded(room: room, account: account))
        case .deop:
            if let account = message.to { policies.rooms[room]!.apply(.operatorRemoved(room: room, account: account)) }
        case .unbanned:
            if let label = message.to { policies.rooms[room]!.apply(.banRemoved(room: room, label: label)) }
        case .banned:
            readRoomSettings(room, then: .refresh, into: &out)
        case .msg, .joined, .left, .nick, .kicked, .file, .edit, .redact, .react, .unreact:
            break
        }
    }
}
