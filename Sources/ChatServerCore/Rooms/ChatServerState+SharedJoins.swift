import ChatProtocol

/// Joining and parting with a shared room log: a member is on its way in until its `joined` is
/// stored and its replay read (its events held meanwhile), and out once its `left` is stored.
extension ChatServerState {
    /// A new member: it is on its way in (its events held) until its `joined` is stored and its
    /// replay read; its later messages wait meanwhile.
    func beginSharedJoin(_ room: String, since: Int64?, id: String?, session: ClientSession, now: Int64,
                         into out: inout [ServerAction]) {
        let catchUp = CatchUp(room: room, since: since, id: id, isRejoin: false)
        session.catchUp = catchUp
        session.awaitsRoomLog = true
        session.rooms.insert(room)
        rooms[room, default: Room(name: room)].catchingUp[session.id] = session
        idleRooms.remove(room)
        // The operators present once it is in (it is not a member yet).
        let operators = liveOperators(of: room, ifIncluding: session).map { present in
            (present + [session.nick]).sorted { ChatValidation.nickKey($0) < ChatValidation.nickKey($1) }
        }
        let joined = StoredEvent(room: room, seq: 0, ts: now, kind: .joined, sender: session.nick, text: "", account: session.account)
        record([RoomEventDraft(event: joined, ops: operators, origin: session, purpose: .join,
                               membership: .add(memberRecord(of: session)))], now: now, into: &out)
    }

    /// A re-join of a room the connection is in, from a shared log: its replay, then its own
    /// `joined` with the latest seq delivered here, then the roster; live events wait meanwhile.
    func beginSharedRejoin(_ room: String, since: Int64?, session: ClientSession, into out: inout [ServerAction]) {
        let catchUp = CatchUp(room: room, since: since, id: nil, isRejoin: true)
        let latest = deliveredSequence[room] ?? 0
        catchUp.liveFrom = latest + 1
        session.catchUp = catchUp
        session.awaitsRoomLog = true
        rooms[room]?.members[session.id] = nil
        rooms[room]?.catchingUp[session.id] = session
        readReplay(of: catchUp, session: session, into: &out)
    }

    /// The joiner's `joined` is stored with `seq`: the room is followed from there, and the
    /// replay before it is read. `adopted`: the device was in the room through another node, so
    /// nothing was stored and `seq` is the room's latest; it catches up as a re-join does.
    func joinStored(_ room: String, seq: Int64, adopted: Bool, session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        guard let catchUp = session.catchUp, catchUp.room == room, !catchUp.isRejoin else { return }
        catchUp.liveFrom = adopted ? seq + 1 : seq
        catchUp.sendsOwnJoined = adopted
        // Other nodes add a new member as `online` (the event has no status): tell them it is not.
        if !adopted, session.status != .online { out.append(.publishMember(memberRecord(of: session), rooms: [room])) }
        if deliveredSequence[room] == nil {
            deliveredSequence[room] = catchUp.liveFrom! - 1
            out.append(.followRoom(room, after: catchUp.liveFrom! - 1))
            readRoomMembers(room, into: &out)
        }
        readReplay(of: catchUp, session: session, into: &out)
    }

    private func readReplay(of catchUp: CatchUp, session: ClientSession, into out: inout [ServerAction]) {
        let limit = catchUp.since == nil ? configuration.defaultReplay : configuration.maxReplay
        // A negative `since` means "from the beginning", like 0.
        readRoomEvents(catchUp.room, after: catchUp.since.map { max($0, 0) }, before: catchUp.liveFrom, limit: limit,
                       for: .catchUp(session.id, live: false), into: &out)
    }

    /// The joiner's `joined` could not be stored: it is not in the room.
    func joinFailed(_ room: String, session: ClientSession, into out: inout [ServerAction]) {
        guard let catchUp = session.catchUp, catchUp.room == room, !catchUp.isRejoin else { return }
        session.catchUp = nil
        session.awaitsRoomLog = false
        session.rooms.remove(room)
        rooms[room]?.catchingUp[session.id] = nil
        settleRoom(room, into: &out)
        sendError(.unavailable, "room '\(room)' cannot be joined right now; try again", id: catchUp.id, room: room, to: session,
                  into: &out)
    }

    /// A catch-up read came back: the replay (or, after an overflow, live events read again)
    /// goes out, then what was held; then the connection is a member like the others.
    func continueCatchUp(_ catchUp: CatchUp, session: ClientSession, read events: [SharedRoomEvent], live: Bool, now: Int64,
                                 into out: inout [ServerAction]) {
        guard let liveFrom = catchUp.liveFrom else { return }
        for event in events where event.seq > catchUp.sentThrough {
            let isLive = live || event.seq >= liveFrom
            if isLive {
                for ack in catchUp.takeAcks(before: event.seq) { sendChat(ack, to: session, into: &out) }
                // Its own message read back from the log: its ack stands for it, as when delivered.
                if event.origin == session.id, event.kind == .msg || event.kind == .file {
                    catchUp.sentThrough = event.seq
                    continue
                }
            }
            let line = event.line(replay: !isLive)
            sendChat(line, to: session, live: false, into: &out)
            if catchUp.isRejoin && !isLive { catchUp.replayed.append(line) }
            catchUp.sentThrough = event.seq
        }
        if !live && catchUp.sendsOwnJoined {
            sendChat(ChatMessage(.joined, sender: session.nick, room: catchUp.room, seq: liveFrom - 1, ts: now), to: session, into: &out)
            catchUp.sentThrough = max(catchUp.sentThrough, liveFrom - 1)
        }
        if catchUp.overflowed || (live && events.count >= RoomEventReadLimit.live) {
            // More arrived meanwhile than is held (or than one read returns): read the live part
            // from the log instead, oldest first, in chunks; what is held is in the log too.
            _ = catchUp.takeHeld()
            readRoomEvents(catchUp.room, after: max(catchUp.sentThrough, liveFrom - 1), before: nil, limit: RoomEventReadLimit.live,
                           newest: false, for: .catchUp(session.id, live: true), into: &out)
            return
        }
        for (seq, payload) in catchUp.takeHeld() where seq >= liveFrom && seq > catchUp.sentThrough {
            for ack in catchUp.takeAcks(before: seq) { sendChat(ack, to: session, into: &out) }
            sendChat(payload, to: session, into: &out)
            catchUp.sentThrough = seq
        }
        for ack in catchUp.takeAcks() { sendChat(ack, to: session, into: &out) }
        finishCatchUp(catchUp, session: session, now: now, into: &out)
    }

    func finishCatchUp(_ catchUp: CatchUp, session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        let room = catchUp.room
        if !catchUp.isRejoin, rooms[room]?.remote.isKnown == false {
            catchUp.awaitsMembers = true
            return
        }
        session.catchUp = nil
        session.awaitsRoomLog = false
        let newlyShared = catchUp.isRejoin ? [] : membersSharingNoRoom(with: session, in: room)
        rooms[room]?.catchingUp[session.id] = nil
        rooms[room, default: Room(name: room)].members[session.id] = session
        rooms[room]!.remote.becameLocal(ChatValidation.nickKey(session.nick))
        welcomeToRoom(room, session: session, newlyShared: newlyShared, into: &out)
        // Re-joins that came meanwhile get the same answer, each.
        if catchUp.repeats > 0, let liveFrom = catchUp.liveFrom {
            let joined = SharedPayload(line: ChatMessage(.joined, sender: session.nick, room: room, seq: liveFrom - 1, ts: now))
            for _ in 0..<catchUp.repeats {
                for line in catchUp.replayed { sendChat(line, to: session, live: false, into: &out) }
                sendChat(joined, to: session, into: &out)
                sendRoster(of: room, to: session, into: &out)
            }
        }
        out.append(.log(catchUp.isRejoin ? .debug : .info, catchUp.isRejoin ? "rejoin" : "join",
                        logFields(session, ["room": room, "seq": String(deliveredSequence[room] ?? 0)])))
        releaseHeldMessages(of: session, now: now, into: &out)
    }

    // MARK: Parting from a shared log

    /// The leaver's `left` came back: it got it like every member, and is out of the room.
    func completePart(_ room: String, session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        session.pendingPart = nil
        session.awaitsRoomLog = false
        session.rooms.remove(room)
        removeMember(session.id, from: room, into: &out)
        out.append(.log(.info, "part", logFields(session, ["room": room])))
        releaseHeldMessages(of: session, now: now, into: &out)
    }

    /// The leaver's `left` could not be stored: it is still in the room.
    func partFailed(_ room: String, id: String?, session: ClientSession, into out: inout [ServerAction]) {
        guard session.pendingPart?.room == room else { return }
        session.pendingPart = nil
        session.awaitsRoomLog = false
        sendError(.unavailable, "room '\(room)' cannot be left right now; try again", id: id, room: room, to: session, into: &out)
    }
}
