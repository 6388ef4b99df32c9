import ChatProtocol

/// With a shared store: the other nodes. Statuses of users travel between nodes; a node that
/// stopped is reaped by another (its users leave with `node-lost`); a node that was itself
/// declared lost closes its connections, whose leases are no longer its.
extension ChatServerState {
    /// The node has joined the cluster and cleared what an earlier run of it left (or, false, lost
    /// its place): hellos may take leases.
    public func clusterReady(_ ready: Bool) {
        sharedStoreReady = ready
    }

    /// The server bans as the shared store has them (at the start, and after another node changed
    /// them): this node's connections a new ban matches are closed with BANNED.
    public func serverBansChanged(_ bans: [Ban], now: Int64) -> [ServerAction] {
        let fresh = bans.filter { policies.serverBans.ban(labelled: $0.label) == nil }
        policies.serverBans = BanList(bans)
        var out: [ServerAction] = []
        for ban in fresh.sorted(by: { $0.key < $1.key }) { closeServerBanned(ban, by: ban.by, now: now, into: &out) }
        return out
    }

    /// A user of another node changed status: its room mates here are told.
    public func remoteStatusChanged(nick: String, account: String?, status: PresenceStatus, now: Int64) -> [ServerAction] {
        let key = ChatValidation.nickKey(nick)
        guard clientsByNickKey[key] == nil else { return [] }
        var told = Set<ClientID>()
        var out: [ServerAction] = []
        let payload = SharedPayload(line: remoteStatusMessage(nick: nick, account: account, status: status))
        for name in rooms.keys where rooms[name]!.remote.records[key] != nil {
            rooms[name]!.remote.setAccount(account, ofKey: key)
            guard rooms[name]!.remote.setStatus(status, ofKey: key) else { continue }
            for (id, member) in rooms[name]!.members where told.insert(id).inserted {
                sendPresence(payload, key: .status(nickKey: key), to: member, into: &out)
            }
        }
        return out
    }

    /// `left` with `node-lost` for the members of the lost `node` in `room`, each only if its
    /// record is still that node's (a user that reconnected elsewhere meanwhile stays). The glue
    /// reaps: it found them in the room's members hash.
    public func reapLostMembers(of node: String, in room: String, members: [MemberRecord], now: Int64) -> [ServerAction] {
        var out: [ServerAction] = []
        record(members.map { member in
            RoomEventDraft(event: StoredEvent(room: room, seq: 0, ts: now, kind: .left, sender: member.nick, text: "node-lost"),
                           purpose: .notice, membership: .removeIfHeld([member.key], by: .node(node)))
        }, now: now, into: &out)
        out.append(.log(.info, "reaped", ["node": node, "room": room, "members": String(members.count)]))
        return out
    }

    /// This node was declared lost (it missed its heartbeats) and reaped by another: its users'
    /// nicks and memberships are gone from the shared store, so every connection is closed (the
    /// clients reconnect and resume) and the node starts over.
    /// `why` says what happened in the log line (a node whose name another instance took stops).
    public func clusterMembershipLost(now: Int64, why: String = "this node was declared lost") -> [ServerAction] {
        sharedStoreReady = false
        var out: [ServerAction] = [.log(.error, "\(why); closing every connection", ["clients": String(clients.count)])]
        for session in clients.values.sorted(by: { $0.id < $1.id }) {
            out.append(.close(session.id, .shutdown, reason: "this node lost its place in the cluster; reconnect"))
        }
        clients = [:]
        activeChatStreams = [:]
        activePresenceStreams = [:]
        clientsByNickKey = [:]
        for room in rooms.keys.sorted() where deliveredSequence[room] != nil { out.append(.unfollowRoom(room)) }
        rooms = [:]
        deliveredSequence = [:]
        heldAcks = [:]
        heldAckCount = 0
        replacedLeftovers = []
        return out
    }
}
