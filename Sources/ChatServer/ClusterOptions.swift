import CLIOptions
import QuicEngine
import RedisClient

/// `--cluster URL`, `--node NAME`, `--cluster-wait-replicas N` and `--cluster-node-timeout S`: this
/// server is one node of several sharing a Redis (or a Redis Cluster), docs/CLUSTER.md. Restart-only.
struct ClusterOptions: Equatable {
    var topology: RedisClient.Topology
    /// SELECTed on a standalone Redis (a Redis Cluster has only 0).
    var database: Int
    /// This node's name among the nodes: unique, 1 to 32 of `A-Za-z0-9_.-`.
    var node: String
    /// Replicas that must confirm a room event (and the other durable writes) before it is
    /// acknowledged (`WAIT`); 0: none, Redis's asynchronous replication.
    var waitReplicas = 0
    static let waitReplicasRange = 0...5
    /// Without a renewed heartbeat for this long, the other nodes take this one for lost; it
    /// renews every third of it. Also the handover of a planned stop: how long its clients have
    /// to reconnect elsewhere before what is left of them is reaped.
    var nodeTimeout = TimeSpan.seconds(6)
    static let nodeTimeoutRange = 3.0...120.0
    /// How often the heartbeat renews and the scan for lost nodes runs.
    var heartbeatInterval: TimeSpan { TimeSpan(nanoseconds: nodeTimeout.nanoseconds / 3) }

    /// `redis://HOST:PORT[/DB]` (one Redis) or `redis-cluster://HOST:PORT[,HOST:PORT...]` (seeds
    /// of a Redis Cluster).
    static func parse(_ url: String, node: String?, defaultNode: String, settings: ServerSettings) throws(UsageError) -> ClusterOptions {
        let name = node ?? defaultNode
        guard isValidNodeName(name) else {
            throw settings.invalid("node", "takes 1 to 32 letters, digits, '_', '.' or '-', not '\(name.prefix(40))'")
        }
        if url.hasPrefix("redis-cluster://") {
            let seeds = url.dropFirst("redis-cluster://".count).split(separator: ",", omittingEmptySubsequences: false)
                .map { RedisURL("redis://" + $0) }
            guard !seeds.isEmpty, seeds.allSatisfy({ $0 != nil && $0!.database == 0 }) else {
                throw settings.invalid("cluster", "takes redis://HOST:PORT[/DB] or redis-cluster://HOST:PORT[,HOST:PORT...], not '\(url)'")
            }
            return ClusterOptions(topology: .cluster(seeds: seeds.map { $0!.server }), database: 0, node: name)
        }
        guard let parsed = RedisURL(url) else {
            throw settings.invalid("cluster", "takes redis://HOST:PORT[/DB] or redis-cluster://HOST:PORT[,HOST:PORT...], not '\(url)'")
        }
        return ClusterOptions(topology: .standalone(parsed.server), database: parsed.database, node: name)
    }

    static func isValidNodeName(_ name: String) -> Bool {
        (1...32).contains(name.utf8.count) && name.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "-")
        }
    }
}
