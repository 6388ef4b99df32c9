import ChatServerCore
import EventRuntime
import RedisClient

/// Nodes that stopped: every heartbeat claims those whose place ran out (``NodeDirectory``); the
/// claimer takes their users out of every room they followed (through the core: `left` with
/// `node-lost`, each only if the member is still that node's) and frees their leases. A joining
/// node does the same to what an earlier run under its name left.
extension ClusterNode {
    mutating func claimAnswered(_ result: Result<RedisReply, RoomStoreError>) {
        guard case .success(let claims) = result.flatMap(NodeDirectoryCommands.claims) else { return }
        for claim in claims where claim.node != node && reaps[claim.node] == nil {
            if claim.stopped {
                log(.info, "node stopped", ["node": claim.node])
            } else {
                log(.warning, "node lost", ["node": claim.node])
            }
            reap(claim.node, forJoin: false)
        }
    }

    /// Reaps `lost`: the rooms it followed (``ClusterKeys/rooms(of:)``), each room's members it
    /// held reported, then its leases freed (``Leases/releaseAllBatches(_:node:sharded:)``) and
    /// its records deleted. A Redis that fails half-way ends it undone: the claim runs out and
    /// another scan finishes it (a join tries again).
    mutating func reap(_ lost: String, forJoin: Bool) {
        reaps[lost] = Reap(forJoin: forJoin)
        let key = ClusterKeys.rooms(of: lost)
        send(RedisCommand("SMEMBERS", key), key: key, for: .reapRooms(lost))
    }

    mutating func reapRoomsAnswered(_ lost: String, _ result: Result<RedisReply, RoomStoreError>) {
        guard case .success(let reply) = result, let rooms = reply.elements?.compactMap(\.text) else { return reapFinished(lost, done: false) }
        guard !rooms.isEmpty else { return releaseLeases(of: lost) }
        reaps[lost]?.roomsLeft = rooms.count
        for room in rooms {
            send(RoomEventLog.stateCommand(room: room), key: RoomKeys(room: room).seq, for: .reapRoom(lost, room: room))
        }
    }

    mutating func reapRoomAnswered(_ lost: String, room: String, _ result: Result<RedisReply, RoomStoreError>) {
        guard var reaping = reaps[lost] else { return }
        switch result.flatMap(RoomEventLog.roomState) {
        case .success(let state):
            let format = MemberRecordFormat(node: node)
            let held = state.members.values.filter { MemberRecordFormat.node(ofRecord: $0) == lost }.compactMap(format.record)
            if !held.isEmpty { report(.reap(node: lost, room: room, held)) }
        case .failure:
            reaping.failed = true
        }
        reaping.roomsLeft -= 1
        reaps[lost] = reaping
        guard reaping.roomsLeft == 0 else { return }
        guard !reaping.failed else { return reapFinished(lost, done: false) }
        releaseLeases(of: lost)
    }

    /// The leases `lost` still holds, in batches; its record of them goes only once every lease
    /// in it was handled.
    mutating func releaseLeases(of lost: String) {
        let holds = Leases.holds(node: lost)
        send(RedisCommand("SMEMBERS", holds), key: holds, for: .reapHolds(lost))
    }

    mutating func reapHoldsAnswered(_ lost: String, _ result: Result<RedisReply, RoomStoreError>) {
        guard case .success(let reply) = result else { return reapFinished(lost, done: false) }
        let batches = Leases.releaseAllBatches(reply.elements?.compactMap(\.text) ?? [], node: lost, sharded: configuration.sharded)
        guard !batches.isEmpty else { return dropHolds(of: lost) }
        reaps[lost]?.batchesLeft = batches.count
        for batch in batches {
            send(batch.command, key: batch.key, for: .reapRelease(lost))
        }
    }

    mutating func reapReleaseAnswered(_ lost: String, _ result: Result<RedisReply, RoomStoreError>) {
        guard var reaping = reaps[lost] else { return }
        if case .failure = result { reaping.failed = true }
        reaping.batchesLeft -= 1
        reaps[lost] = reaping
        guard reaping.batchesLeft == 0 else { return }
        guard !reaping.failed else { return reapFinished(lost, done: false) }
        dropHolds(of: lost)
    }

    mutating func dropHolds(of lost: String) {
        let holds = Leases.holds(node: lost)
        send(RedisCommand("DEL", holds), key: holds, for: .reapHoldsDropped(lost))
    }

    /// The leases are free (whatever the DEL answered): the rooms' record goes last.
    mutating func reapHoldsDropped(_ lost: String) {
        let key = ClusterKeys.rooms(of: lost)
        send(RedisCommand("DEL", key), key: key, for: .reapRoomsDropped(lost))
    }

    mutating func reapFinished(_ lost: String, done: Bool) {
        guard let reaping = reaps.removeValue(forKey: lost) else { return }
        if reaping.forJoin { return joinReaped(done: done) }
        guard done else { return }
        figures.nodesReaped += 1
        send(configuration.directory.finishedReaping(lost), key: NodeDirectory.directoryKey, for: .unanswered)
    }
}
