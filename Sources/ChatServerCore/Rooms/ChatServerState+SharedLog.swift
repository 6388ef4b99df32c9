import ChatProtocol

/// The inputs of a shared room log (one server's local store or the cluster's): the outcome of each append, the
/// answer to each read, and every event of the followed rooms in seq order. Members see an event
/// when it is delivered, on the node that made it as on every other: one path, one order.
extension ChatServerState {
    /// The outcome of ``ServerAction/appendRoomEvent(_:)``; an unknown token does nothing.
    public func roomEventAppended(_ token: UInt64, _ outcome: RoomAppendOutcome, now: Int64) -> [ServerAction] {
        guard let pending = pendingAppends.removeValue(forKey: token) else {
            return [.log(.warning, "unknown room append", ["token": String(token)])]
        }
        var out: [ServerAction] = []
        var outcome = outcome
        // Its event came back before the reply: it is stored (whatever a lost reply says) and acknowledged.
        if let seq = pending.acknowledgedSeq { outcome = .stored(seq: seq, duplicate: false) }
        let origin = pending.origin.flatMap { clients[$0] }
        if origin == nil, let client = pending.origin, deferredCloses[client] != nil {
            answerClosing(client, pending, outcome, into: &out)
            return out
        }
        switch outcome {
        case .stored(let seq, let duplicate, let firstTs):
            // Seq 0: a conditional `left` whose member was no longer there (it moved): nothing stored.
            if seq == 0 { out.append(.log(.debug, "room event not needed", ["room": pending.room])) }
            appendStored(pending.purpose, room: pending.room, seq: seq, duplicate: duplicate, ts: firstTs ?? pending.ts, origin: origin,
                         acknowledged: pending.acknowledgedSeq != nil, now: now, into: &out)
        case .settingTaken(let value):
            if case .claim(let id) = pending.purpose {
                claimRefused(pending.room, owner: value, id: id, origin: origin, into: &out)
            } else {
                out.append(.log(.error, "room event refused for a setting", ["room": pending.room]))
                takeBackSettings(of: pending)
                appendFailed(pending.purpose, room: pending.room, origin: origin, into: &out)
            }
        case .failed(let reason):
            notStoredWarnings.note(room: pending.room, error: reason, now: now, into: &out)
            takeBackSettings(of: pending)
            appendFailed(pending.purpose, room: pending.room, origin: origin, stored: nil, into: &out)
        case .refused(let reason):
            notStoredWarnings.note(room: pending.room, error: reason, now: now, into: &out)
            takeBackSettings(of: pending)
            appendFailed(pending.purpose, room: pending.room, origin: origin, stored: false, into: &out)
        }
        if let origin { releaseHeldMessages(of: origin, now: now, into: &out) }
        return out
    }

    /// A change of the room's settings whose event was not stored did not happen: the cache, which
    /// took it at once, has the settings from before it again (as on a store that refused the
    /// change), should the read that follows fail as well.
    private func takeBackSettings(of pending: PendingAppend) {
        guard let before = pending.settingsBefore, policies.rooms[pending.room] != nil else { return }
        policies.rooms[pending.room] = before
    }

    /// Room appends handed to the glue and not answered yet.
    public var pendingRoomAppends: Int { pendingAppends.count }

    /// A message of a connection the core closed while it waited for the store: its `ack` (or
    /// `unavailable`) still goes out, and the close with the last of them. The connection gets no
    /// more events, so an ack goes out only when it follows what the connection got in its room
    /// without a gap (``DeferredClose/follows(_:in:through:)``); otherwise the client sends the
    /// message again after reconnecting, and the dedupe answers its seq.
    private func answerClosing(_ client: ClientID, _ pending: PendingAppend, _ outcome: RoomAppendOutcome, into out: inout [ServerAction]) {
        // Its own `left` (made as it went) is not among what the close waits for.
        guard var deferred = deferredCloses[client], !pending.purpose.isDeparture else { return }
        if case .message(let id) = pending.purpose, pending.acknowledgedSeq == nil {
            var answer: ChatMessage?
            switch outcome {
            case .stored(let seq, _, let firstTs):
                if DeferredClose.follows(seq, in: pending.room, through: &deferred.through) {
                    answer = .ack(id: id, room: pending.room, seq: seq, ts: firstTs ?? pending.ts)
                }
            case .failed, .settingTaken: answer = .error(code: .unavailable, text: "the message could not be stored; send it again", id: id)
            case .refused: answer = .error(code: .unavailable, text: "the message could not be stored; send it again", id: id, stored: false)
            }
            if let answer { out.append(.send(client, .chat, SharedPayload(line: answer), live: true)) }
        }
        deferred.waiting -= 1
        if deferred.waiting > 0 {
            deferredCloses[client] = deferred
        } else {
            deferredCloses[client] = nil
            out.append(.close(client, deferred.code, reason: deferred.reason))
        }
    }

    /// A room event from the shared log, in seq order per room (the glue fills gaps before it
    /// delivers anything later). Events of rooms this node does not follow are ignored.
    public func roomEventDelivered(_ event: SharedRoomEvent, now: Int64) -> [ServerAction] {
        guard let delivered = deliveredSequence[event.room] else { return [] }
        guard event.seq > delivered else {
            return [.log(.warning, "room event delivered twice", ["room": event.room, "seq": String(event.seq)])]
        }
        deliveredSequence[event.room] = event.seq
        var out: [ServerAction] = []
        // Acks wait for their place in the room's order: up to this event's, its own included.
        releaseAcks(of: event.room, through: event.seq, into: &out)
        if event.append != nil { acknowledgeDelivered(event, into: &out) }
        guard let room = rooms[event.room] else { return out }
        let payload = event.line(replay: false)
        // The sender of a `msg` or a file has its `ack` instead.
        let excluded = event.kind == .msg || event.kind == .file ? event.origin : nil
        out.reserveCapacity(room.members.count)
        for (member, session) in room.members where member != excluded {
            sendChat(payload, to: session, into: &out)
        }
        for (member, session) in room.catchingUp where member != excluded {
            session.catchUp?.hold(seq: event.seq, payload: payload)
        }
        switch event.kind {
        case .msg, .file, .edit, .redact, .react, .unreact:
            return out
        case .joined, .left, .nick, .kicked, .banned, .topic, .unbanned, .op, .deop, .mode:
            break
        }
        guard let message = try? ChatMessage.decode(event.payload) else {
            out.append(.log(.error, "undecodable room event", ["room": event.room, "seq": String(event.seq)]))
            return out
        }
        switch event.kind {
        case .left:
            if let origin = event.origin.flatMap({ clients[$0] }), origin.pendingPart?.room == event.room {
                completePart(event.room, session: origin, now: now, into: &out)
            }
        case .kicked, .banned:
            removeNamedMembers(of: event, message: message, into: &out)
        default:
            break
        }
        applyPolicy(of: event, message: message, into: &out)
        applyMembership(of: event, message: message, into: &out)
        return out
    }

    /// The answer to ``ServerAction/readRoomEvents(_:)``: the events oldest first, or nil when the
    /// log could not be read (the glue has already retried).
    public func roomEventsRead(_ token: UInt64, _ events: [SharedRoomEvent]?, now: Int64) -> [ServerAction] {
        guard let pending = pendingReads.removeValue(forKey: token) else {
            return [.log(.warning, "unknown room read", ["token": String(token)])]
        }
        var out: [ServerAction] = []
        switch pending {
        case .catchUp(let client, let live):
            guard let session = clients[client], let catchUp = session.catchUp else { break }
            if events == nil {
                out.append(.log(.error, "room history read failed", ["room": catchUp.room]))
            }
            continueCatchUp(catchUp, session: session, read: events ?? [], live: live, now: now, into: &out)
        case .members, .settings:
            break
        case .history(let client, let room):
            guard let session = clients[client] else { break }
            guard let events else {
                sendError(.unavailable, "the history of room '\(room)' cannot be read right now; try again", room: room, to: session,
                          into: &out)
                break
            }
            for event in events { sendChat(event.line(replay: true), to: session, live: false, into: &out) }
            sendChat(.historyEnd(room: room), to: session, live: false, into: &out)
        }
        return out
    }

    /// Asks the glue for events of `room`: the newest (or oldest) `limit` with `after < seq < before`.
    func readRoomEvents(_ room: String, after: Int64?, before: Int64?, limit: Int, newest: Bool = true, for purpose: PendingRead,
                        into out: inout [ServerAction]) {
        nextSharedToken += 1
        pendingReads[nextSharedToken] = purpose
        out.append(.readRoomEvents(RoomEventRead(token: nextSharedToken, room: room, after: after, before: before, limit: limit,
                                                 newest: newest)))
    }

    /// A `kicked` or `banned` from the log: the members it names are out of the room here.
    private func removeNamedMembers(of event: SharedRoomEvent, message: ChatMessage, into out: inout [ServerAction]) {
        let named = event.kind == .kicked ? [message.to ?? ""] : (message.members ?? [])
        let keys = Set(named.map(ChatValidation.nickKey))
        let removed = (rooms[event.room]?.members ?? [:]).values.filter { keys.contains(ChatValidation.nickKey($0.nick)) }
            .sorted { $0.id < $1.id }
        removeFromRoom(removed, event.room, into: &out)
    }

    /// A room nobody is in or entering any more becomes idle (and, from a shared log, is no
    /// longer followed: a later join follows it again from its own `joined`).
    func settleRoom(_ room: String, into out: inout [ServerAction]) {
        guard rooms[room]?.isDeserted != false else { return }
        rooms[room] = nil
        if deliveredSequence.removeValue(forKey: room) != nil {
            flushHeldAcks(of: room, into: &out)
            out.append(.unfollowRoom(room))
            // Other nodes may change them now without this one hearing: read again at a next join.
            policies.rooms[room] = nil
        }
        idleRooms.insert(room)
        while idleRooms.count > configuration.idleRoomLimit, let oldest = idleRooms.popOldest() {
            forgetIdleRoom(oldest)
        }
    }
}

/// Bounds of shared-log reads the core asks for.
enum RoomEventReadLimit {
    /// Live events read again for a connection whose held events overflowed.
    static let live = 1000
}
