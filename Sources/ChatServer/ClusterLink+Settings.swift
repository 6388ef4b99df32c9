import ChatServerCore
import ClusterStore
import EventRuntime
import RedisClient

/// Room settings and server bans in Redis (their format is ``PolicyFormat``'s). A server ban's
/// change is published on ``ClusterKeys/serverChannel`` so every node reads them again and closes
/// its connections a new ban matches (``PolicyWrite``).
extension ClusterLink {
    var serverSubscription: RedisSubscription {
        RedisSubscription(client.isCluster ? .shard : .channel, ClusterKeys.serverChannel)
    }

    func readState(_ token: UInt64, room: String, patience: ReadPatience = ReadPatience(startedAt: .now())) {
        log.state(room: room) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let state):
                report(.roomState(token, seq: state.seq, state.members.values.compactMap(memberFormat.record),
                                  PolicyFormat.settings(from: state.settings)))
            case .failure(let error) where patience.retries(error, now: .now()):
                loop.schedule(at: .now() + ReadPatience.retryDelay) { [weak self] in self?.readState(token, room: room, patience: patience) }
            case .failure(let error):
                logger(.error, "room state read failed", ["room": room, "error": "\(error)"])
                report(.roomState(token, seq: 0, nil, nil))
            }
        }
    }

    func writePolicy(_ change: PolicyChange) {
        requests.run(PolicyWrite(change, node: options.node, sharded: client.isCluster)) { [logger] outcome in
            if outcome == .lost { logger(.error, "policy change lost", ["room": change.room ?? "server"]) }
        }
    }
}
