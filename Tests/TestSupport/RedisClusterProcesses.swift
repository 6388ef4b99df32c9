import Foundation

/// A real Redis Cluster of `masters` cluster-enabled `redis-server`s (no replicas) on free
/// loopback ports, joined by `redis-cli --cluster create`, every slot assigned. Stopped when
/// released.
public final class RedisClusterProcesses: @unchecked Sendable {
    public let nodes: [RedisServerProcess]

    /// `options` apply to every node (persistence); cluster mode is always on.
    public init(masters: Int = 3, options: RedisServerProcess.Options = .init()) throws {
        var nodeOptions = options
        nodeOptions.clusterEnabled = true
        nodes = try (0..<masters).map { _ in try RedisServerProcess(options: nodeOptions) }
        let addresses = nodes.map { "127.0.0.1:\($0.port)" }
        let child = try ChildProcess(RedisServerProcess.cli, ["--cluster", "create"] + addresses + ["--cluster-yes"],
                                     standardInput: "/dev/null")
        let result = child.finish(timeout: 60)
        guard result.status == 0 else {
            throw RedisServerProcess.StartFailure(description: "redis-cli --cluster create failed: \(result.output) \(result.errors)")
        }
        // Every node logs the moment it sees the whole cluster (all slots served, gossip done).
        for node in nodes where !node.waitForLog("Cluster state changed: ok", timeout: 30) {
            throw RedisServerProcess.StartFailure(description: "cluster node \(node.port) never reached state ok")
        }
    }

    public var ports: [UInt16] { nodes.map(\.port) }

    /// The node ID of the node on `port` (CLUSTER MYID).
    public func nodeID(port: UInt16) throws -> String { try RedisServerProcess.run(port: port, ["CLUSTER", "MYID"]) }

    /// The port of the master serving `slot`, as the node on `askingPort` (the first by
    /// default) sees it in CLUSTER NODES: "<id> <ip:port@bus> <flags> <master> <ping> <pong>
    /// <epoch> <link> <slot ranges...>".
    public func owner(of slot: Int, askingPort: UInt16? = nil) throws -> UInt16? {
        let text = try RedisServerProcess.run(port: askingPort ?? nodes[0].port, ["CLUSTER", "NODES"])
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 8, fields[2].contains("master") else { continue }
            let address = fields[1].split(separator: "@")[0]
            guard let colon = address.lastIndex(of: ":"), let port = UInt16(address[address.index(after: colon)...]) else { continue }
            for range in fields.dropFirst(8) where !range.hasPrefix("[") {
                let bounds = range.split(separator: "-").compactMap { Int($0) }
                if bounds.count == 1, bounds[0] == slot { return port }
                if bounds.count == 2, (bounds[0]...bounds[1]).contains(slot) { return port }
            }
        }
        return nil
    }

    /// Moves an empty `slot` to the master on `port` (CLUSTER SETSLOT ... NODE on every master).
    public func moveEmptySlot(_ slot: Int, to port: UInt16) throws {
        let target = try nodeID(port: port)
        // The new owner first, then the others: each learns it at once rather than by gossip.
        for node in [port] + nodes.map(\.port).filter({ $0 != port }) {
            let answer = try RedisServerProcess.run(port: node, ["CLUSTER", "SETSLOT", String(slot), "NODE", target])
            guard answer == "OK" else {
                throw RedisServerProcess.StartFailure(description: "CLUSTER SETSLOT on \(node): \(answer)")
            }
        }
    }

    public func stop() { for node in nodes { node.stop() } }
}
