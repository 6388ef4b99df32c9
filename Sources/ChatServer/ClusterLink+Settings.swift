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

    func readState(_ token: UInt64, room: String) {
        requests.run(RoomStateRead(room: room, format: memberFormat, startedAt: .now())) { [report, logger] outcome in
            switch outcome {
            case .state(let seq, let members, let settings): report(.roomState(token, seq: seq, members, settings))
            case .failed(let error):
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
