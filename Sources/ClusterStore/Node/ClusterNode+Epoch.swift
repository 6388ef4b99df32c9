import ChatServerCore
import EventRuntime
import RedisClient

/// A Redis that lost its data (restarted without persistence, a failover to an empty replica)
/// must not make seqs go back (PROTOCOL.md: seqs are never reused). ``ClusterKeys/epoch`` is a
/// random token written once; each node remembers the one it saw. When a node finds it missing or
/// changed after reconnecting, it writes a new one and raises the seq counter of every room it
/// follows above the last seq it delivered there (plus ``ClusterNode/epochSeqMargin`` for what
/// other nodes may have delivered beyond it) before it stores anything again: clients' `since`
/// stays meaningful. Its users' leases and memberships are gone with the data, so it then closes
/// its connections (as a node declared lost does: they reconnect and resume) and joins the
/// cluster again. Rooms no node follows start again low; a client's `since` above their counter
/// gets a replay that begins at the counter (the truncated-replay rule).
///
/// On a Redis Cluster the key lives in one shard: only the loss of that shard's master holds
/// appends back until the next check (a failover that moves it is checked on the new master),
/// and the epoch vouches for that shard's data only (docs/CLUSTER.md, "Durability").
extension ClusterNode {
    /// Checks the epoch (`force`: even when it was checked since the last loss, as after every
    /// new connection and at every heartbeat), then lets appends through and joins the directory
    /// if not yet in it. A check that could not reach Redis leaves appends held; the next
    /// connection, slot map or heartbeat tries again.
    mutating func verifyStore(force: Bool = false) {
        guard force || !epochChecked, !epochCheckInFlight else { return }
        epochCheckInFlight = true
        let candidate = configuration.epochCandidate()
        // SET NX answers whether it wrote; GET the value in force either way.
        send(RedisCommand("SET", ClusterKeys.epoch, candidate, "NX", "GET"), key: ClusterKeys.epoch, for: .epoch(candidate: candidate))
    }

    mutating func epochAnswered(_ result: Result<RedisReply, RoomStoreError>, candidate: String,
                                followed: () -> [(room: String, delivered: Int64)]) {
        epochCheckInFlight = false
        guard case .success(let reply) = result else { return }
        let current = reply.text ?? candidate
        let known = epoch
        epoch = current
        // An append saw a loss the epoch may not show (a room's keys evicted): recover all the same.
        let lost = lossPending
        lossPending = false
        guard lost || known.map({ $0 != current || reply == .null }) == true else { return epochVerified() }
        // The data this node knew is gone: seqs must go on above what it delivered.
        epochChecked = false
        figures.epochChanges += 1
        // The floors first: closing the connections unfollows their rooms.
        let floors = followed().map { ($0.room, $0.delivered + Self.epochSeqMargin) }
        log(.error, "redis lost its data: raising room seqs", ["rooms": String(floors.count)])
        // The users' leases and memberships went with the data: like a node declared lost,
        // this one closes its connections (they reconnect and resume) and joins again.
        if isReady {
            becameUnready()
            report(.membershipLost)
        }
        guard !floors.isEmpty else { return epochVerified() }
        let recovery = UInt64(figures.epochChanges)
        raisesLeft[recovery] = floors.count
        for (room, floor) in floors {
            let key = RoomKeys(room: room).seq
            send(RedisCommand("EVAL", Self.raiseSeqScript, "1", key, String(floor)), key: key, for: .raiseSeq(recovery: recovery))
        }
    }

    /// One of a recovery's raises answered (whatever it answered: a room whose raise failed is
    /// no worse than one no node follows).
    mutating func seqRaised(_ recovery: UInt64) {
        guard let left = raisesLeft[recovery] else { return }
        guard left <= 1 else {
            raisesLeft[recovery] = left - 1
            return
        }
        raisesLeft[recovery] = nil
        epochVerified()
    }

    /// It is safe to write.
    mutating func epochVerified() {
        epochChecked = true
        // A loss reported while this check was in flight is handled by another check.
        if lossPending { return verifyStore(force: true) }
        if !isReady { joinDirectory() }
    }

    /// An append found that Redis no longer has what this node saw of `room` (its counter below
    /// the seq this node delivered there, or the epoch changed under it: a FLUSHALL, keys evicted,
    /// a failover to a replica that lacked the last writes), without any reconnect to tell
    /// (issue 26, item 2). Appends are held at once, and the store is recovered as after an epoch
    /// change: seqs raised, connections closed, the directory joined again.
    public mutating func storeLost(room: String) -> [Action] {
        figures.storeLossesFound += 1
        guard !lossPending else { return flush() }
        lossPending = true
        epochChecked = false
        log(.error, "redis lost data this node had seen", ["room": room])
        verifyStore(force: true)
        return flush()
    }

    /// Reads `maxmemory-policy` from every Redis that holds data (`INFO memory`, which managed
    /// services allow where they rename CONFIG): any policy but `noeviction` may drop keys (the
    /// `volatile-*` ones the dedupe keys and receipts; the `allkeys-*` ones a room's counter or
    /// stream), and seqs would be reused and resends stored twice (issue 26, item 2). Unsafe
    /// while one has such a policy: a node does not join then (it logs why, an error, at each
    /// change), and a running node says so in its log and `qchat_cluster_redis_eviction_safe`.
    /// A Redis that does not answer INFO is not held against the node.
    mutating func checkEviction(forJoin: Bool) {
        sendToEachDataServer(RedisCommand("INFO", "memory"), for: .eviction(forJoin: forJoin))
    }

    mutating func evictionAnswered(_ replies: [(server: String, result: Result<RedisReply, RoomStoreError>)], forJoin: Bool) {
        // No server to ask (a Redis Cluster's slot map not known yet): nothing to hold against it.
        guard !replies.isEmpty else {
            if forJoin { evictionChecked(safe: true) }
            return
        }
        var unsafe: [String] = []
        for (server, result) in replies {
            if case .success(.bulk(let text)) = result, let policy = Self.evictionPolicy(inInfo: text), policy != "noeviction" {
                unsafe.append("\(server) \(policy)")
            }
        }
        let found = unsafe.isEmpty ? nil : unsafe.sorted().joined(separator: ", ")
        if found != figures.unsafeEvictionPolicy {
            if let found {
                log(.error, "redis may evict keys: set maxmemory-policy noeviction",
                    ["policy": found, "effect": isReady ? "seqs may be reused" : "not joining the cluster"])
            } else if figures.unsafeEvictionPolicy != nil {
                log(.info, "redis eviction policy is noeviction", [:])
            }
            figures.unsafeEvictionPolicy = found
        }
        if forJoin { evictionChecked(safe: found == nil) }
    }

    /// `maxmemory_policy:...` of an INFO reply.
    public static func evictionPolicy(inInfo text: [UInt8]) -> String? {
        let marker = Array("maxmemory_policy:".utf8)
        for line in text.split(whereSeparator: { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) where line.starts(with: marker) {
            return String(decoding: line.dropFirst(marker.count), as: UTF8.self)
        }
        return nil
    }

    /// KEYS[1] a room's seq counter, ARGV[1] a floor: the counter is raised to it, never lowered.
    public static let raiseSeqScript = """
        local current = tonumber(redis.call('GET', KEYS[1]) or '0')
        if current < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
        return 0
        """
}
