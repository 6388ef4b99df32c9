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
        guard !joining, !isReady else { return }
        joining = true
        directory.join { [weak self] result in
            guard let self else { return }
            guard case .success = result else {
                joining = false
                loop.schedule(at: .now() + Self.heartbeatInterval) { [weak self] in self?.joinDirectory() }
                return
            }
            // An earlier run of this node may have left users in rooms and leases behind.
            reap(options.node) { [weak self] done in
                guard let self else { return }
                joining = false
                guard done else {
                    loop.schedule(at: .now() + Self.heartbeatInterval) { [weak self] in self?.joinDirectory() }
                    return
                }
                loadServerBans { [weak self] loaded in
                    guard let self else { return }
                    guard loaded else {
                        loop.schedule(at: .now() + Self.heartbeatInterval) { [weak self] in self?.joinDirectory() }
                        return
                    }
                    prepareFiles { [weak self] prepared in
                        guard let self else { return }
                        guard prepared else {
                            loop.schedule(at: .now() + Self.heartbeatInterval) { [weak self] in self?.joinDirectory() }
                            return
                        }
                        isReady = true
                        logger(.info, "cluster node ready", ["node": options.node])
                        report(.ready(true))
                    }
                }
            }
        }
    }

    func heartbeat() {
        defer { loop.schedule(at: .now() + Self.heartbeatInterval) { [weak self] in self?.heartbeat() } }
        // An epoch check that could not reach Redis is tried again.
        verifyStore()
        guard isReady else { return }
        directory.renew { [weak self] result in
            guard let self, case .success(let beat) = result else { return }
            if beat == .reaped {
                logger(.error, "this node was declared lost", ["node": options.node])
                isReady = false
                report(.membershipLost)
                joinDirectory()
            }
        }
        directory.claimLost { [weak self] result in
            guard let self, case .success(let lost) = result else { return }
            for node in lost where node != options.node && reaping.insert(node).inserted {
                logger(.warning, "node lost", ["node": node])
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
