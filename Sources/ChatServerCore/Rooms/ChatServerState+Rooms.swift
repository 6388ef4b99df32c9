import ChatProtocol

/// Joining and parting rooms (PROTOCOL.md section 3, "Joining", and section 12).
extension ChatServerState {
    /// A `join` after the hello.
    func handleJoin(_ join: ChatMessage, from session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        guard let room = ChatValidation.normalizeRoom(join.roomOrDefault) else {
            sendError(.badRoom, id: join.id, to: session, into: &out)
            return
        }
        enter(room, since: join.since, id: join.id, session: session, now: now, into: &out)
    }

    /// A valid `join` of `room`: a new membership within the room limit, or the resynchronisation
    /// of one the client already has. `settingsFresh`: with a shared store, the room's settings
    /// were just read (not cached), so a refusal is final.
    func enter(_ room: String, since: Int64?, id: String?, session: ClientSession, now: Int64, settingsFresh: Bool = false,
               into out: inout [ServerAction]) {
        if session.isMember(of: room) {
            resynchronise(room, since: since, session: session, now: now, into: &out)
            return
        }
        guard session.rooms.count < configuration.maxRoomsPerClient else {
            sendError(.tooManyRooms, "a connection may be in at most \(configuration.maxRoomsPerClient) rooms; part one first",
                      id: id, to: session, into: &out)
            return
        }
        guard let settings = settings(of: room, into: &out) else {
            return awaitSettings(of: room, then: .join(session.id, since: since, id: id), session: session, into: &out)
        }
        if let (code, text) = joinDenial(of: session, settings: settings, room: room) {
            // An invite may have been stored through another node since these were cached.
            if code == .notInvited, !settingsFresh {
                return awaitSettings(of: room, then: .join(session.id, since: since, id: id), session: session, into: &out)
            }
            sendError(code, text, id: id, room: room, to: session, into: &out)
            return
        }
        joinRoom(room, since: since, id: id, session: session, now: now, into: &out)
    }

    /// The `joined` is stored and the replay read first (``beginSharedJoin``): then the replay,
    /// the live `joined` to every member including the joiner, and presence.
    private func joinRoom(_ room: String, since: Int64?, id: String?, session: ClientSession, now: Int64,
                          into out: inout [ServerAction]) {
        beginSharedJoin(room, since: since, id: id, session: session, now: now, into: &out)
    }

    /// Presence for a new member: its status to those it shares a room with only now, the roster
    /// to it, and the status of each of those that is not `online` to it.
    func welcomeToRoom(_ room: String, session: ClientSession, newlyShared: [ClientSession], into out: inout [ServerAction]) {
        if !newlyShared.isEmpty {
            let ownStatus = SharedPayload(line: statusMessage(of: session))
            for other in newlyShared { sendStatus(ownStatus, of: session, to: other, into: &out) }
        }
        sendRoster(of: room, to: session, into: &out)
        for other in newlyShared where other.status != .online {
            sendStatus(SharedPayload(line: statusMessage(of: other)), of: other, to: session, into: &out)
        }
        // Members of other nodes (a shared log) that are not online, and whom it meets here first.
        for (key, member) in rooms[room]?.remote.records ?? [:] where member.status != .online {
            guard !session.rooms.contains(where: { $0 != room && rooms[$0]?.remote.records[key] != nil }) else { continue }
            sendPresence(SharedPayload(line: remoteStatusMessage(nick: member.nick, account: member.account, status: member.status)),
                         key: .status(nickKey: key), to: session, into: &out)
        }
    }

    /// A `join` of a room the client is already in (PROTOCOL.md section 12): the replay it asks
    /// for, its own `joined` with the room's latest seq and the roster, to it alone. Nothing is
    /// stored and nobody else is told, so re-joining can neither flood a room with `joined`
    /// events nor push its messages out of the stored history.
    private func resynchronise(_ room: String, since: Int64?, session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        beginSharedRejoin(room, since: since, session: session, into: &out)
    }

    /// The members of `room` with whom `session` shares none of its other rooms: they learn its
    /// status when it joins. O(members × rooms of the joiner), which the room limit bounds.
    func membersSharingNoRoom(with session: ClientSession, in room: String) -> [ClientSession] {
        guard let members = rooms[room]?.members, !members.isEmpty else { return [] }
        let ownRooms = session.rooms.compactMap { $0 == room ? nil : rooms[$0]?.members }
        return members.compactMap { member, other in
            ownRooms.contains { $0[member] != nil } ? nil : other
        }
    }

    /// The roster with the room's topic, modes and operators present, always (PROTOCOL.md section
    /// 8: a roster carries them; `""` and `[]` when there are none), and the members logged in when
    /// there are any (`identified`, ours: docs/PROTOCOL.md).
    func sendRoster(of room: String, to session: ClientSession, into out: inout [ServerAction]) {
        var roster = ChatMessage.roster(room: room, members: memberNicks(of: room))
        // A member's join read them (a join is checked against them), so they are cached here.
        let settings = policies.rooms[room] ?? RoomSettings()
        roster.topic = settings.topic?.text ?? ""
        roster.modes = settings.modeNames
        roster.ops = operatorNicks(of: room)
        let identified = identifiedNicks(of: room)
        roster.identified = identified.isEmpty ? nil : identified
        sendPresence(SharedPayload(line: roster), key: .roster(room: room), to: session, into: &out)
    }

    /// A live event that can change who of the room's operators is present (`joined`, `nick`,
    /// `op`, `deop`) carries `ops`, the nicks after it, when `session` is one of them or `always`:
    /// clients mark operators from it.
    func withOperators(_ message: ChatMessage, of room: String, ifIncluding session: ClientSession?,
                       always: Bool = false) -> ChatMessage {
        var message = message
        message.ops = liveOperators(of: room, ifIncluding: session, always: always)
        return message
    }

    /// The `ops` of ``withOperators(_:of:ifIncluding:always:)``: nil unless `session` is an operator or `always`.
    func liveOperators(of room: String, ifIncluding session: ClientSession?, always: Bool = false) -> [String]? {
        guard always || session.map({ policies.rooms[room]?.isOperator($0.accountKey) == true }) == true else { return nil }
        return operatorNicks(of: room)
    }

    /// `part`: the `left` event (text `part`) goes to every member, the leaver included. From a
    /// shared log the leaver stays in the room until its `left` comes back (its later messages
    /// wait); if the `left` cannot be stored, it is still in the room and told `unavailable`.
    func handlePart(_ part: ChatMessage, from session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        guard let room = ChatValidation.normalizeRoom(part.roomOrDefault) else {
            sendError(.badRoom, id: part.id, to: session, into: &out)
            return
        }
        guard session.isMember(of: room) else {
            sendError(.notJoined, "you are not in room '\(room)'", id: part.id, to: session, into: &out)
            return
        }
        let left = StoredEvent(room: room, seq: 0, ts: now, kind: .left, sender: session.nick, text: "part")
        // The leaver waits for its own `left` from the log.
        session.pendingPart = (room, part.id)
        session.awaitsRoomLog = true
        record([RoomEventDraft(event: left, origin: session, purpose: .part(id: part.id),
                               membership: .remove([ChatValidation.nickKey(session.nick)]))], now: now, into: &out)
    }

    /// Takes a client out of a room's members; a room left without members becomes idle.
    func removeMember(_ client: ClientID, from room: String, into out: inout [ServerAction]) {
        rooms[room]?.members[client] = nil
        settleRoom(room, into: &out)
    }

    /// Everyone who shares at least one room with `session`, not counting itself.
    func roomMates(of session: ClientSession) -> Set<ClientID> {
        var mates = Set<ClientID>()
        for room in session.rooms {
            if let members = rooms[room]?.members { mates.formUnion(members.keys) }
        }
        mates.remove(session.id)
        return mates
    }

    /// The nicks in a room (those `including` picks by account), on this node and, with a shared
    /// log, on the others, sorted case-insensitively so rosters are stable.
    func memberNicks(of room: String, including: (_ account: String?) -> Bool = { _ in true }) -> [String] {
        guard let entry = rooms[room] else { return [] }
        // Keys computed once per nick, not once per comparison.
        var keyed = entry.members.values.filter { including($0.account) }.map { (key: ChatValidation.nickKey($0.nick), nick: $0.nick) }
        for (key, member) in entry.remote.records where including(member.account) { keyed.append((key, member.nick)) }
        return keyed.sorted { $0.key < $1.key }.map(\.nick)
    }
}
