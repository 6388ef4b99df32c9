import ChatServerCore
import ClusterStore
import QuicEngine
import RedisClient

/// The node directory (``NodeDirectory``): this node joins it once Redis answers, clears what an
/// earlier run under the same name left (its users' memberships and leases), and only then takes
/// hellos; it renews its place every two seconds, and scans for nodes that stopped, whose users
/// it takes out of their rooms (`left` with `node-lost`) and whose leases it frees.
extension ClusterLink {
    func joinDirectory() {
        guard !joining, !isReady, !nameLost else { return }
        joining = true
        // Not on a Redis that may evict keys: the node would hand out seqs twice.
        checkEviction { [weak self] safe in
            guard let self else { return }
            guard safe else {
                joining = false
                loop.schedule(at: .now() + options.heartbeatInterval) { [weak self] in self?.joinDirectory() }
                return
            }
            joinDirectoryNow()
        }
    }

    private func joinDirectoryNow() {
        directory.join { [weak self] result in
            guard let self else { return }
            if case .success(.taken(let deadline, let holder)) = result {
                joining = false
                return nameHeld(until: deadline, by: holder)
            }
            guard case .success = result else {
                joining = false
                loop.schedule(at: .now() + options.heartbeatInterval) { [weak self] in self?.joinDirectory() }
                return
            }
            heldName = nil
            // An earlier run of this node may have left users in rooms and leases behind.
            reap(options.node) { [weak self] done in
                guard let self else { return }
                joining = false
                guard done else {
                    loop.schedule(at: .now() + options.heartbeatInterval) { [weak self] in self?.joinDirectory() }
                    return
                }
                loadServerBans { [weak self] loaded in
                    guard let self else { return }
                    guard loaded else {
                        loop.schedule(at: .now() + options.heartbeatInterval) { [weak self] in self?.joinDirectory() }
                        return
                    }
                    prepareFiles { [weak self] prepared in
                        guard let self else { return }
                        guard prepared else {
                            loop.schedule(at: .now() + options.heartbeatInterval) { [weak self] in self?.joinDirectory() }
                            return
                        }
                        isReady = true
                        metrics.lastRenewal = .now()
                        heartbeats.setRenewing(true)
                        logger(.info, "cluster node ready", ["node": options.node])
                        report(.ready(true))
                    }
                }
            }
        }
    }

    /// Another instance holds this node's name (the join answered `taken`). A deadline that
    /// moved between two looks is a running instance: this one must not serve under its name, and
    /// stops. One that does not move (a crash, or a planned stop handing its clients over) is
    /// waited out, as is a reaper's claim of the name's earlier run.
    private func nameHeld(until deadline: Int64, by holder: String) {
        let live = !holder.hasPrefix("stopping:") && holder != "reaping"
        if live, let seen = heldName, seen.holder == holder, deadline > seen.deadline {
            return loseName("another running instance holds this node's name")
        }
        if heldName?.holder != holder {
            logger(.warning, "node name held; waiting", ["node": options.node, "by": live ? "another instance" : holder == "reaping" ? "a reaper" : "a stopping instance",
                                                        "for_ms": String(max(0, deadline - (heldName?.deadline ?? deadline)))])
        }
        heldName = (deadline, holder)
        loop.schedule(at: .now() + options.heartbeatInterval) { [weak self] in self?.joinDirectory() }
    }

    /// This node's name is another instance's: it stops serving, loudly (the app closes every
    /// connection and exits with status 1). Nothing of the name's state is touched: it is theirs.
    func loseName(_ why: String) {
        guard !nameLost else { return }
        nameLost = true
        becameUnready()
        logger(.error, "node name taken", ["node": options.node, "error": why])
        report(.nameTaken(why))
    }

    /// A planned stop (SIGTERM): no more renewals or scans, and the directory is told the node is
    /// stopping. Its clients have `--cluster-node-timeout` to reconnect to other nodes, quietly
    /// (the same device: no `left`, no `joined`); whatever is left of them then is reaped by the
    /// node that claims it, which logs `node stopped` rather than `node lost`. `done` once the
    /// directory answered (or could not be reached).
    func leave(_ done: @escaping () -> Void) {
        guard isReady, !leaving, !nameLost else { return done() }
        leaving = true
        becameUnready()
        directory.leave(after: options.nodeTimeout) { [weak self] result in
            if case .failure(let error) = result {
                self?.logger(.warning, "could not tell the directory this node stops", ["error": "\(error)"])
            }
            done()
        }
    }

    /// A renewal's answer, from the heartbeat thread (``HeartbeatThread``).
    func renewed(_ result: Result<NodeDirectory.Heartbeat, RoomStoreError>) {
        guard isReady, !leaving, !nameLost else { return }
        guard case .success(let beat) = result else {
            metrics.renewFailures += 1
            return
        }
        switch beat {
        case .reaped:
            logger(.error, "this node was declared lost", ["node": options.node])
            becameUnready()
            report(.membershipLost)
            joinDirectory()
        case .taken:
            loseName("another instance took this node's name")
        case .alive:
            metrics.lastRenewal = .now()
        }
    }

    /// The node is out of the directory (declared lost, lost its name, its store lost its data):
    /// no renewals until it joins again.
    func becameUnready() {
        isReady = false
        heartbeats.setRenewing(false)
    }

    func heartbeat() {
        guard !nameLost, !leaving else { return }
        defer { loop.schedule(at: .now() + options.heartbeatInterval) { [weak self] in self?.heartbeat() } }
        // The epoch, every time: a Redis emptied in place (FLUSHALL) shows no reconnect.
        verifyStore(force: true)
        guard isReady else { return }
        // A running node is told when a Redis it stores in came to evict keys (CONFIG SET).
        checkEviction { _ in }
        directory.claim { [weak self] result in
            guard let self, case .success(let claims) = result else { return }
            for claim in claims where claim.node != options.node && reaping.insert(claim.node).inserted {
                let node = claim.node
                if claim.stopped {
                    logger(.info, "node stopped", ["node": node])
                } else {
                    logger(.warning, "node lost", ["node": node])
                }
                reap(node) { [weak self] done in
                    guard let self else { return }
                    reaping.remove(node)
                    if done {
                        metrics.nodesReaped += 1
                        directory.finishedReaping(node) { _ in }
                    }
                }
            }
        }
        // After the claim (the same connection, in order): the nodes whose place has not run out,
        // those handing their clients over after a planned stop included.
        directory.members { [weak self] result in
            guard let self, case .success(let members) = result else { return }
            metrics.peerNodes = members.keys.count { $0 != options.node }
        }
    }

    /// Takes `node`'s users out of every room it followed (through the core: `left` with
    /// `node-lost`, each only if the member is still that node's) and frees its leases; `done`
    /// false when Redis failed half-way (the claim runs out and another scan finishes it).
    func reap(_ node: String, done: @escaping (Bool) -> Void) {
        let roomsKey = Self.roomsKey(of: node)
        client.send(RedisCommand("SMEMBERS", roomsKey), key: roomsKey) { [weak self] result in
            guard let self, case .success(let reply) = RoomEventLog.storeResult(result), let rooms = reply.elements?.compactMap(\.text)
            else { return done(false) }
            var remaining = rooms.count
            var failed = false
            func finishRooms() {
                guard !failed else { return done(false) }
                leases.releaseAll(node: node) { [weak self] released in
                    guard let self, case .success = released else { return done(false) }
                    client.send(RedisCommand("DEL", roomsKey), key: roomsKey) { _ in done(true) }
                }
            }
            guard remaining > 0 else { return finishRooms() }
            for room in rooms {
                log.state(room: room) { [weak self] snapshot in
                    guard let self else { return }
                    switch snapshot {
                    case .success(let state):
                        let held = state.members.values.filter { Self.node(ofRecord: $0) == node }.compactMap { memberRecord($0) }
                        if !held.isEmpty { report(.reap(node: node, room: room, held)) }
                    case .failure:
                        failed = true
                    }
                    remaining -= 1
                    if remaining == 0 { finishRooms() }
                }
            }
        }
    }
}
