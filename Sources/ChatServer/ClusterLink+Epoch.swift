import ClusterStore
import QuicEngine
import RedisClient

/// A Redis that lost its data (restarted without persistence, a failover to an empty replica)
/// must not make seqs go back (PROTOCOL.md: seqs are never reused). `{meta}:epoch` is a random
/// token written once; each node remembers the one it saw. When a node finds it missing or
/// changed after reconnecting, it writes a new one and raises the seq counter of every room it
/// follows above the last seq it delivered there (plus a margin for what other nodes may have
/// delivered beyond it) before it stores anything again: clients' `since` stays meaningful. Its
/// users' leases and memberships are gone with the data, so it then closes its connections (as a
/// node declared lost does: they reconnect and resume) and joins the cluster again.
/// Rooms no node follows start again low; a client's `since` above their counter gets a replay
/// that begins at the counter (the truncated-replay rule).
///
/// On a Redis Cluster the key lives in one shard: only the loss of that shard's master holds
/// appends back until the next check (a failover that moves it is checked on the new master),
/// and the epoch vouches for that shard's data only (docs/CLUSTER.md, "Durability").
extension ClusterLink {
    static let epochKey = "{meta}:epoch"
    /// How far above its own last delivered seq a node raises a room's counter after a loss.
    static let epochSeqMargin: Int64 = 1_000

    /// Checks the epoch (`force`: even when it was checked since the last loss, as after every
    /// new connection), then lets appends through and joins the directory if not yet in it. A
    /// check that could not reach Redis leaves appends held; the next connection, slot map or
    /// heartbeat tries again.
    func verifyStore(force: Bool = false) {
        guard force || !epochChecked, !epochCheckInFlight else { return }
        epochCheckInFlight = true
        checkEpoch { [weak self] checked in
            guard let self else { return }
            epochCheckInFlight = false
            guard checked else { return }
            epochChecked = true
            if !isReady { joinDirectory() }
        }
    }

    /// Whether losing the connection to `server` may mean losing the epoch's store (and the data
    /// it vouches for): the one Redis, or on a Redis Cluster the master serving the epoch's slot.
    /// Another shard's master, or a dead seed that serves nothing any more, does not hold back
    /// appends.
    func holdsEpoch(_ server: RedisServerAddress) -> Bool {
        guard client.isCluster, let map = client.currentSlotMap else { return true }
        return map.owner(of: RedisKeySlot.slot(of: Self.epochKey)) == server
    }

    /// Checks the epoch; `done(true)` once it is safe to write, `done(false)` when Redis could
    /// not be asked.
    func checkEpoch(_ done: @escaping (Bool) -> Void) {
        let candidate = SHA256.hex(of: RandomBytes().bytes(16))
        // SET NX answers whether it wrote; GET the value in force either way.
        client.send(RedisCommand("SET", Self.epochKey, candidate, "NX", "GET"), key: Self.epochKey) { [weak self] result in
            guard let self else { return }
            guard case .success(let reply) = RoomEventLog.storeResult(result) else { return done(false) }
            let current = reply.text ?? candidate
            defer { epoch = current }
            guard let known = epoch, known != current || reply == .null else { return done(true) }
            // The data this node knew is gone: seqs must go on above what it delivered.
            metrics.epochChanges += 1
            logger(.error, "redis lost its data: raising room seqs", ["rooms": String(feed.followedRooms.count)])
            // The users' leases and memberships went with the data: like a node declared lost,
            // this one closes its connections (they reconnect and resume) and joins again.
            let rooms = feed.followedRooms
            if isReady {
                isReady = false
                report(.membershipLost)
            }
            var remaining = rooms.count
            guard remaining > 0 else { return done(true) }
            for room in rooms {
                let floor = (feed.delivered(room) ?? 0) + Self.epochSeqMargin
                let key = RoomKeys(room: room).seq
                client.send(RedisCommand("EVAL", Self.raiseSeqScript, "1", key, String(floor)), key: key) { _ in
                    remaining -= 1
                    if remaining == 0 { done(true) }
                }
            }
        }
    }

    /// KEYS[1] a room's seq counter, ARGV[1] a floor: the counter is raised to it, never lowered.
    static let raiseSeqScript = """
        local current = tonumber(redis.call('GET', KEYS[1]) or '0')
        if current < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
        return 0
        """
}
