import ChatProtocol

/// With a shared log: the members of followed rooms on other nodes (``RemoteMembers``), read
/// when a room is first followed and kept by the membership changes of its delivered events, so
/// rosters, `ops`, `identified` and presence cover every node.
extension ChatServerState {
    /// The answer to ``ServerAction/readRoomState(_:room:)``: the room's members on every node and
    /// its settings, as of `seq`; nil when the store could not be read (the room is then taken as
    /// having only this node's members, and read again at its next follow).
    public func roomStateRead(_ token: UInt64, seq: Int64, members: [MemberRecord]?, settings: RoomSettings?,
                              now: Int64) -> [ServerAction] {
        guard let pending = pendingReads.removeValue(forKey: token) else {
            return [.log(.warning, "unknown room state read", ["token": String(token)])]
        }
        var out: [ServerAction] = []
        switch pending {
        case .members(let room):
            if let settings { policies.rooms[room] = settings }
            guard rooms[room] != nil else { return out }
            membersKnown(room, seq: seq, members: members, now: now, into: &out)
        case .settings(let room, let then):
            guard let settings else {
                out.append(.log(.error, "room settings read failed", ["room": room]))
                settingsUnavailable(room, then: then, into: &out)
                return out
            }
            settingsRead(room, settings, then: then, now: now, into: &out)
        case .catchUp, .history:
            out.append(.log(.warning, "room state answered another read", ["token": String(token)]))
        }
        return out
    }

    private func membersKnown(_ room: String, seq: Int64, members: [MemberRecord]?, now: Int64, into out: inout [ServerAction]) {
        if members == nil { out.append(.log(.error, "room members read failed", ["room": room])) }
        rooms[room]!.remote.snapshot(members ?? [], at: members == nil ? (deliveredSequence[room] ?? 0) : seq,
                                     isLocal: { isLocalMember($0, of: room) })
        // Joiners waiting for the complete roster.
        for session in rooms[room]!.catchingUp.values {
            if let catchUp = session.catchUp, catchUp.awaitsMembers {
                catchUp.awaitsMembers = false
                // What was held meanwhile goes out first.
                continueCatchUp(catchUp, session: session, read: [], live: true, now: now, into: &out)
            }
        }
    }

    /// Asks the glue for the room's members on every node (and its settings).
    func readRoomMembers(_ room: String, into out: inout [ServerAction]) {
        nextSharedToken += 1
        pendingReads[nextSharedToken] = .members(room)
        out.append(.readRoomState(nextSharedToken, room: room))
    }

    /// A session of this node holds the nick `key` and is in (or entering) `room`.
    func isLocalMember(_ key: String, of room: String) -> Bool {
        guard let id = clientsByNickKey[key], let session = clients[id] else { return false }
        return session.rooms.contains(room)
    }

    /// The record of a local member, as the members hash keeps it.
    func memberRecord(of session: ClientSession) -> MemberRecord {
        MemberRecord(nick: session.nick, account: session.account, status: session.status, peer: session.peer)
    }

    /// What a delivered event changes in the room's members; nil for events that change none.
    func membershipChange(of event: SharedRoomEvent, message: ChatMessage) -> MembershipChange? {
        switch event.kind {
        case .joined:
            return .add(MemberRecord(nick: message.sender, account: message.account, status: event.memberStatus ?? .online,
                                     onThisNode: event.origin != nil))
        case .left:
            return .remove([ChatValidation.nickKey(message.sender)])
        case .nick:
            return .rename(fromKey: ChatValidation.nickKey(message.sender),
                           to: MemberRecord(nick: message.text, account: message.account, status: event.memberStatus ?? .online,
                                            onThisNode: event.origin != nil))
        case .kicked:
            return message.to.map { .remove([ChatValidation.nickKey($0)]) }
        case .banned:
            return .remove((message.members ?? []).map(ChatValidation.nickKey))
        case .msg, .topic, .unbanned, .op, .deop, .mode, .file, .edit, .redact, .react, .unreact:
            return nil
        }
    }

    /// Applies a delivered event's change of members, with the presence it means for this
    /// node's members: a user of another node that they now share a room with for the first
    /// time shows its status; one that went away (not a `part`) and shares no room with them any
    /// more is `offline`.
    func applyMembership(of event: SharedRoomEvent, message: ChatMessage, into out: inout [ServerAction]) {
        guard let change = membershipChange(of: event, message: message), rooms[event.room] != nil else { return }
        let room = event.room
        var previousStatus: PresenceStatus?
        if case .rename(let fromKey, _) = change { previousStatus = rooms[room]!.remote.records[fromKey]?.status }
        let applied = rooms[room]!.remote.apply(change, seq: event.seq, isLocal: { isLocalMember($0, of: room) })
        if !applied {
            rooms[room]!.remote.reset()
            readRoomMembers(room, into: &out)
            return
        }
        if case .rename(_, let member) = change, let previousStatus { _ = rooms[room]!.remote.setStatus(previousStatus, ofKey: member.key) }
        guard event.origin == nil else { return }
        switch change {
        case .add(let member) where !isLocalMember(member.key, of: room):
            let status = SharedPayload(line: remoteStatusMessage(nick: member.nick, account: member.account,
                                                                 status: rooms[room]!.remote.records[member.key]?.status ?? .online))
            for local in rooms[room]!.members.values where !sharesAnotherRoom(local, withKey: member.key, besides: room) {
                sendPresence(status, key: .status(nickKey: member.key), to: local, into: &out)
            }
        case .remove(let keys) where event.kind == .left && message.text != "part":
            for key in keys where !isLocalMember(key, of: room) {
                let offline = SharedPayload(line: remoteStatusMessage(nick: message.sender, account: message.account, status: .offline))
                for local in rooms[room]!.members.values where !sharesAnotherRoom(local, withKey: key, besides: nil) {
                    sendPresence(offline, key: .status(nickKey: key), to: local, into: &out)
                }
            }
        default:
            break
        }
    }

    /// Whether `session` shares a room other than `besides` with the user `key` (of any node).
    func sharesAnotherRoom(_ session: ClientSession, withKey key: String, besides: String?) -> Bool {
        session.rooms.contains { room in
            guard room != besides, let entry = rooms[room] else { return false }
            return entry.remote.records[key] != nil || entry.members.values.contains { ChatValidation.nickKey($0.nick) == key }
        }
    }

    func remoteStatusMessage(nick: String, account: String?, status: PresenceStatus) -> ChatMessage {
        var message = ChatMessage.status(status.rawValue, sender: nick)
        message.account = account
        return message
    }
}
