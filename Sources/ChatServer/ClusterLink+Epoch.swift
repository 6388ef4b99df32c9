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
    /// new connection and at every heartbeat), then lets appends through and joins the directory
    /// if not yet in it. A check that could not reach Redis leaves appends held; the next
    /// connection, slot map or heartbeat tries again.
    func verifyStore(force: Bool = false) {
        guard force || !epochChecked, !epochCheckInFlight else { return }
        epochCheckInFlight = true
        checkEpoch { [weak self] checked in
            guard let self else { return }
            epochCheckInFlight = false
            guard checked else { return }
            epochChecked = true
            // A loss reported while this check was in flight is handled by another check.
            if lossPending { return verifyStore(force: true) }
            if !isReady { joinDirectory() }
        }
    }

    /// An append found that Redis no longer has what this node saw of `room` (its counter below
    /// the seq this node delivered there, or the epoch changed under it: a FLUSHALL, keys evicted,
    /// a failover to a replica that lacked the last writes), without any reconnect to tell
    /// (issue 26, item 2). Appends are held at once, and the store is recovered as after an epoch
    /// change: seqs raised, connections closed, the directory joined again.
    func storeLost(room: String) {
        metrics.storeLossesFound += 1
        guard !lossPending else { return }
        lossPending = true
        epochChecked = false
        logger(.error, "redis lost data this node had seen", ["room": room])
        verifyStore(force: true)
    }

    /// Whether losing the connection to `server` may mean losing the epoch's store (and the data
    /// it vouches for): the one Redis, or on a Redis Cluster the master serving the epoch's slot.
    /// Another shard's master, or a dead seed that serves nothing any more, does not hold back
    /// appends.
    func holdsEpoch(_ server: RedisServerAddress) -> Bool {
        guard client.isCluster, let map = client.currentSlotMap else { return true }
        return map.owner(of: RedisKeySlot.slot(of: Self.epochKey)) == server
    }

    /// The epoch an append checks in the same script, on one Redis (on a Redis Cluster the key
    /// is in another slot than the room's: there the room's counter and the heartbeat's check
    /// find a loss).
    var appendEpoch: (key: String, value: String)? {
        guard !client.isCluster, let epoch else { return nil }
        return (Self.epochKey, epoch)
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
            // An append saw a loss the epoch may not show (a room's keys evicted): recover all the same.
            let lost = lossPending
            lossPending = false
            guard lost || epoch.map({ $0 != current || reply == .null }) == true else { return done(true) }
            // The data this node knew is gone: seqs must go on above what it delivered.
            epochChecked = false
            metrics.epochChanges += 1
            logger(.error, "redis lost its data: raising room seqs", ["rooms": String(feed.followedRooms.count)])
            // The users' leases and memberships went with the data: like a node declared lost,
            // this one closes its connections (they reconnect and resume) and joins again.
            // The floors first: closing the connections unfollows their rooms.
            let floors = feed.followedRooms.map { ($0, (feed.delivered($0) ?? 0) + Self.epochSeqMargin) }
            if isReady {
                becameUnready()
                report(.membershipLost)
            }
            var remaining = floors.count
            guard remaining > 0 else { return done(true) }
            for (room, floor) in floors {
                let key = RoomKeys(room: room).seq
                client.send(RedisCommand("EVAL", Self.raiseSeqScript, "1", key, String(floor)), key: key) { _ in
                    remaining -= 1
                    if remaining == 0 { done(true) }
                }
            }
        }
    }

    /// Reads `maxmemory-policy` from every Redis that holds data (`INFO memory`, which managed
    /// services allow where they rename CONFIG): any policy but `noeviction` may drop keys (the
    /// `volatile-*` ones the dedupe keys and receipts; the `allkeys-*` ones a room's counter or
    /// stream), and seqs would be reused and resends stored twice (issue 26, item 2). `done(false)`
    /// while one has such a policy: a node does not join then (it logs why, an error, at each
    /// change), and a running node says so in its log and `qchat_cluster_redis_eviction_safe`.
    /// A Redis that does not answer INFO is not held against the node.
    func checkEviction(_ done: @escaping (Bool) -> Void) {
        let servers = client.dataServers
        var remaining = servers.count
        var unsafe: [String] = []
        guard remaining > 0 else { return done(true) }
        for server in servers {
            client.send(RedisCommand("INFO", "memory"), to: server) { [weak self] result in
                guard let self else { return }
                if case .success(.bulk(let text)) = result, let policy = Self.evictionPolicy(inInfo: text), policy != "noeviction" {
                    unsafe.append("\(server) \(policy)")
                }
                remaining -= 1
                guard remaining == 0 else { return }
                let found = unsafe.isEmpty ? nil : unsafe.sorted().joined(separator: ", ")
                if found != metrics.unsafeEvictionPolicy {
                    if let found {
                        logger(.error, "redis may evict keys: set maxmemory-policy noeviction",
                               ["policy": found, "effect": isReady ? "seqs may be reused" : "not joining the cluster"])
                    } else if metrics.unsafeEvictionPolicy != nil {
                        logger(.info, "redis eviction policy is noeviction", [:])
                    }
                    metrics.unsafeEvictionPolicy = found
                }
                done(found == nil)
            }
        }
    }

    /// `maxmemory_policy:...` of an INFO reply.
    static func evictionPolicy(inInfo text: [UInt8]) -> String? {
        let marker = Array("maxmemory_policy:".utf8)
        for line in text.split(whereSeparator: { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) where line.starts(with: marker) {
            return String(decoding: line.dropFirst(marker.count), as: UTF8.self)
        }
        return nil
    }

    /// KEYS[1] a room's seq counter, ARGV[1] a floor: the counter is raised to it, never lowered.
    static let raiseSeqScript = """
        local current = tonumber(redis.call('GET', KEYS[1]) or '0')
        if current < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
        return 0
        """
}
