import ChatProtocol
import ChatServerCore
import ClusterStore
import QuicEngine
import RedisClient

/// Room settings and server bans in Redis (their format is ``PolicyFormat``'s). A server ban's
/// change is published on ``ClusterKeys/serverChannel`` so every node reads them again and closes
/// its connections a new ban matches.
extension ClusterLink {
    var serverSubscription: RedisSubscription {
        RedisSubscription(client.isCluster ? .shard : .channel, ClusterKeys.serverChannel)
    }

    // MARK: Reads and writes

    func readState(_ token: UInt64, room: String, startedAt: QuicTime = .now()) {
        log.state(room: room) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let state):
                report(.roomState(token, seq: state.seq, state.members.values.compactMap(memberFormat.record),
                                  PolicyFormat.settings(from: state.settings)))
            case .failure(let error) where error.isTransient && QuicTime.now() < startedAt + Self.readPatience:
                loop.schedule(at: .now() + Self.readRetryDelay) { [weak self] in self?.readState(token, room: room, startedAt: startedAt) }
            case .failure(let error):
                logger(.error, "room state read failed", ["room": room, "error": "\(error)"])
                report(.roomState(token, seq: 0, nil, nil))
            }
        }
    }

    /// An invite or a server ban: written on its own, durably (a ban lost to a failover would let
    /// the banned back; retried while Redis is unavailable or the replicas do not confirm, within
    /// reason); a server ban is then announced to the other nodes.
    func writePolicy(_ change: PolicyChange, attempt: Int = 0) {
        guard let fieldChange = PolicyFormat.settingsChange(change) else { return }
        let key: String
        let field: String
        switch change.room {
        case let room?:
            key = RoomKeys(room: room).settings
            if case .set(let name, _) = fieldChange { field = name } else if case .delete(let name) = fieldChange { field = name } else { return }
        case nil:
            key = ClusterKeys.serverBans
            switch change {
            case .banAdded(_, let ban): field = ban.key
            case .banRemoved(_, let label): field = ChatValidation.nickKey(label)
            default: return
            }
        }
        let command: RedisCommand
        if case .set(_, let value) = fieldChange { command = RedisCommand("HSET", key, field, value) } else { command = RedisCommand("HDEL", key, field) }
        client.send(command, key: key, durable: true) { [weak self] result in
            guard let self else { return }
            if case .failure = RoomEventLog.storeResult(result) {
                guard attempt < 25 else { return logger(.error, "policy change lost", ["room": change.room ?? "server"]) }
                loop.schedule(at: .now() + Self.readRetryDelay) { [weak self] in self?.writePolicy(change, attempt: attempt + 1) }
                return
            }
            if change.room == nil {
                let channel = ClusterKeys.serverChannel
                client.send(RedisCommand(client.isCluster ? "SPUBLISH" : "PUBLISH", channel, "bans \(options.node)"), key: channel) { _ in }
            }
        }
    }
}
