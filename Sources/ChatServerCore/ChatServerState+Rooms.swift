import ChatProtocol

/// Joining and parting rooms (PROTOCOL.md section 3, "Joining").
extension ChatServerState {
    /// A `join` after the hello.
    func handleJoin(_ join: ChatMessage, from session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        guard let room = ChatValidation.normalizeRoom(join.roomOrDefault) else {
            sendError(.badRoom, id: join.id, to: session, into: &out)
            return
        }
        joinRoom(room, since: join.since, session: session, now: now, into: &out)
    }

    /// Replay, then the live `joined` to every member including the joiner, then presence:
    /// the joiner's status to members it did not share a room with, the roster to the joiner,
    /// and the status of each such member that is not `online` to the joiner.
    ///
    /// Joining a room the client is already in is answered the same way (replay, a new
    /// stored `joined`, roster), so a client that lost track can always resynchronise.
    func joinRoom(_ room: String, since: Int64?, session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        replay(room, since: since, to: session, into: &out)

        var newlyShared: [ClientSession] = []
        if !session.isMember(of: room) {
            for member in rooms[room]?.members ?? [] {
                if let other = clients[member], !sharesRoom(session, with: member) { newlyShared.append(other) }
            }
            rooms[room, default: Room(name: room)].members.insert(session.id)
            session.rooms.append(room)
        }

        let joined = makeEvent(.joined, in: room, sender: session.nick, now: now, into: &out)
        _ = persist([joined], into: &out)
        broadcast(joined.message(replay: false), toMembersOf: room, into: &out)

        if !newlyShared.isEmpty {
            let ownStatus = SharedPayload(line: .status(session.status.rawValue, sender: session.nick))
            for other in newlyShared { sendPresence(ownStatus, to: other, into: &out) }
        }
        sendPresence(SharedPayload(line: .roster(room: room, members: memberNicks(of: room))), to: session, into: &out)
        for other in newlyShared where other.status != .online {
            sendPresence(SharedPayload(line: .status(other.status.rawValue, sender: other.nick)), to: session, into: &out)
        }
        out.append(.log(.info, "join", logFields(session, ["room": room, "seq": String(joined.seq)])))
    }

    /// Stored events newer than `since` (at most `maxReplay`), or the last `defaultReplay`
    /// without it, oldest first, marked as replay and not counted as live traffic.
    private func replay(_ room: String, since: Int64?, to session: ClientSession, into out: inout [ServerAction]) {
        let limit = since == nil ? configuration.defaultReplay : configuration.maxReplay
        // A negative `since` means "from the beginning", like 0.
        let events = storedEvents(inRoom: room, after: since.map { max($0, 0) }, before: nil, limit: limit, into: &out)
        for event in events {
            sendChat(event.message(replay: true), to: session, live: false, into: &out)
        }
    }

    /// `part`: the `left` event (text `part`) goes to every member, the leaver included.
    func handlePart(_ part: ChatMessage, from session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        guard let room = ChatValidation.normalizeRoom(part.roomOrDefault) else {
            sendError(.badRoom, id: part.id, to: session, into: &out)
            return
        }
        guard session.isMember(of: room) else {
            sendError(.notJoined, "you are not in room '\(room)'", id: part.id, to: session, into: &out)
            return
        }
        let left = makeEvent(.left, in: room, sender: session.nick, text: "part", now: now, into: &out)
        _ = persist([left], into: &out)
        broadcast(left.message(replay: false), toMembersOf: room, into: &out)
        removeMembership(of: session, from: room)
        out.append(.log(.info, "part", logFields(session, ["room": room])))
    }

    func removeMembership(of session: ClientSession, from room: String) {
        session.rooms.removeAll { $0 == room }
        rooms[room]?.members.remove(session.id)
        if rooms[room]?.members.isEmpty == true { rooms[room] = nil }
    }

    /// Whether `other` is in at least one of the rooms of `session`.
    func sharesRoom(_ session: ClientSession, with other: ClientID) -> Bool {
        session.rooms.contains { rooms[$0]?.members.contains(other) == true }
    }

    /// Everyone who shares at least one room with `session`, not counting itself.
    func roomMates(of session: ClientSession) -> Set<ClientID> {
        var mates = Set<ClientID>()
        for room in session.rooms {
            if let members = rooms[room]?.members { mates.formUnion(members) }
        }
        mates.remove(session.id)
        return mates
    }

    /// The nicks in a room, sorted case-insensitively so rosters are stable.
    func memberNicks(of room: String) -> [String] {
        // Keys computed once per nick, not once per comparison.
        let keyed = (rooms[room]?.members ?? []).compactMap { clients[$0] }.map { (key: ChatValidation.nickKey($0.nick), nick: $0.nick) }
        return keyed.sorted { $0.key < $1.key }.map(\.nick)
    }
}
