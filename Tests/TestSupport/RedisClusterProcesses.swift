import Foundation

/// A real Redis Cluster of `masters` cluster-enabled `redis-server`s, each with
/// `replicasPerMaster` replicas, on free loopback ports, joined by `redis-cli --cluster create`,
/// every slot assigned. Stopped when released.
public final class RedisClusterProcesses: @unchecked Sendable {
    public let nodes: [RedisServerProcess]

    /// One line of CLUSTER NODES: "<id> <ip:port@bus> <flags> <master> <ping> <pong> <epoch>
    /// <link> <slot ranges...>".
    public struct NodeLine: Sendable {
        public let id: String
        public let port: UInt16
        public let flags: [String]
        /// The master's id for a replica; nil for a master.
        public let masterID: String?
        public let link: String
        public let slots: [ClosedRange<Int>]

        init?(_ line: Substring) {
            let fields = line.split(separator: " ")
            let address = fields.count >= 8 ? fields[1].split(separator: "@")[0] : ""
            guard fields.count >= 8, let colon = address.lastIndex(of: ":"),
                  let port = UInt16(address[address.index(after: colon)...]) else { return nil }
            id = String(fields[0])
            self.port = port
            flags = fields[2].split(separator: ",").map(String.init)
            masterID = fields[3] == "-" ? nil : String(fields[3])
            link = String(fields[7])
            slots = fields.dropFirst(8).filter { !$0.hasPrefix("[") }.compactMap { range in
                let bounds = range.split(separator: "-").compactMap { Int($0) }
                if bounds.count == 1 { return bounds[0]...bounds[0] }
                return bounds.count == 2 ? bounds[0]...bounds[1] : nil
            }
        }

        public var isMaster: Bool { flags.contains("master") }
        /// Seen failing (`fail` or `fail?`) by the node asked.
        public var isFailing: Bool { flags.contains { $0.hasPrefix("fail") } }
    }

    /// `options` apply to every node (persistence); cluster mode is always on. Returns once every
    /// node says the cluster is ok, every replica finished its first sync, and every node sees
    /// every other with its role.
    public init(masters: Int = 3, replicasPerMaster: Int = 0, options: RedisServerProcess.Options = .init()) throws {
        var nodeOptions = options
        nodeOptions.clusterEnabled = true
        // A replica's full sync starts at once, not after Redis's default 5 s wait for others.
        nodeOptions.extra += ["--repl-diskless-sync-delay", "0"]
        nodes = try (0..<(masters * (1 + replicasPerMaster))).map { _ in try RedisServerProcess(options: nodeOptions) }
        let addresses = nodes.map { "127.0.0.1:\($0.port)" }
        let child = try ChildProcess(RedisServerProcess.cli, ["--cluster", "create"] + addresses
                                     + ["--cluster-replicas", String(replicasPerMaster), "--cluster-yes"],
                                     standardInput: "/dev/null")
        let result = child.finish(timeout: 60)
        guard result.status == 0 else {
            throw RedisServerProcess.StartFailure(description: "redis-cli --cluster create failed: \(result.output) \(result.errors)")
        }
        // Every node logs the moment it sees the whole cluster (all slots served, gossip done).
        for node in nodes where !node.waitForLog("Cluster state changed: ok", timeout: 30) {
            throw RedisServerProcess.StartFailure(description: "cluster node \(node.port) never reached state ok")
        }
        guard replicasPerMaster > 0 else { return }
        // A failover needs the votes of the other masters: each must know every replica as one.
        let expected = masters * replicasPerMaster
        try waitUntil("every node sees \(expected) replicas") {
            try nodes.allSatisfy { node in
                let view = try clusterNodes(askingPort: node.port)
                return view.count == nodes.count && view.filter { !$0.isMaster && $0.masterID != nil }.count == expected
                    && view.allSatisfy { $0.link == "connected" }
            }
        }
        for line in try clusterNodes(askingPort: nodes[0].port) where line.isMaster {
            try waitUntil("\(replicasPerMaster) replicas of \(line.port) confirm its writes") {
                try node(port: line.port)?.replicasConfirmWrites(replicasPerMaster) == true
            }
        }
    }

    /// What a replica logs when its sync with its master is done.
    public static let syncedLine = "MASTER <-> REPLICA sync: Finished with success"

    public var ports: [UInt16] { nodes.map(\.port) }

    public func node(port: UInt16) -> RedisServerProcess? { nodes.first { $0.port == port } }

    /// The node ID of the node on `port` (CLUSTER MYID).
    public func nodeID(port: UInt16) throws -> String { try RedisServerProcess.run(port: port, ["CLUSTER", "MYID"]) }

    /// CLUSTER NODES as the node on `askingPort` sees the cluster.
    public func clusterNodes(askingPort: UInt16) throws -> [NodeLine] {
        try RedisServerProcess.run(port: askingPort, ["CLUSTER", "NODES"]).split(separator: "\n").compactMap(NodeLine.init)
    }

    /// The port of the master serving `slot`, as the node on `askingPort` (the first by
    /// default) sees it.
    public func owner(of slot: Int, askingPort: UInt16? = nil) throws -> UInt16? {
        try clusterNodes(askingPort: askingPort ?? nodes[0].port).first { $0.isMaster && $0.slots.contains { $0.contains(slot) } }?.port
    }

    /// The ports of the replicas of the master on `port`.
    public func replicas(of port: UInt16) throws -> [UInt16] {
        let id = try nodeID(port: port)
        return try clusterNodes(askingPort: port).filter { $0.masterID == id }.map(\.port)
    }

    /// After the master serving `slot` (on `failedPort`) died: waits until one of `candidates`
    /// (its replicas) has won the election, then until every running node sees it serving
    /// `slot`. Returns the new master's port. (A test whose own loop must keep running asks
    /// ``electedReplica(among:)`` and ``allSee(_:serving:)`` from it instead.)
    public func waitForFailover(of slot: Int, from failedPort: UInt16, candidates: [UInt16], timeout: TimeInterval = 30) throws -> UInt16 {
        var winner: UInt16?
        try waitUntil("a replica of \(failedPort) won the election", timeout: timeout) {
            winner = electedReplica(among: candidates)
            return winner != nil
        }
        try waitUntil("every node sees \(winner!) serving slot \(slot)", timeout: timeout) { try allSee(winner!, serving: slot) }
        return winner!
    }

    /// The one of `candidates` that logged winning a failover election, if any has.
    public func electedReplica(among candidates: [UInt16]) -> UInt16? {
        candidates.first { node(port: $0)?.hasLogged(Self.electionWonLine) == true }
    }

    /// Whether every running node sees the master on `port` serving `slot`.
    public func allSee(_ port: UInt16, serving slot: Int) throws -> Bool {
        try nodes.filter(\.isRunning).allSatisfy { try owner(of: slot, askingPort: $0.port) == port }
    }

    /// What a replica logs when it was elected in a failover.
    public static let electionWonLine = "Failover election won"

    /// Starts the killed node on `port` again on its folder: it finds its slots served by the
    /// replica promoted meanwhile and becomes that one's replica. Returns once its sync is done
    /// and it confirms its master's writes.
    public func rejoinAsReplica(port: UInt16, timeout: TimeInterval = 30) throws {
        try restartKilled(port: port)
        try waitUntil("\(port) is a replica confirming writes again", timeout: timeout) { try isConfirmingReplica(port: port) }
    }

    /// Starts the killed node on `port` again on its folder (returns once it accepts connections).
    public func restartKilled(port: UInt16) throws {
        guard let node = node(port: port) else { throw RedisServerProcess.StartFailure(description: "no node on \(port)") }
        try node.restart()
    }

    /// Whether the node on `port` is a replica that finished its sync, that its master counts
    /// online, and that confirms its master's writes (a WAIT there counts it).
    public func isConfirmingReplica(port: UInt16) throws -> Bool {
        guard let replica = node(port: port), replica.hasLogged(Self.syncedLine) else { return false }
        let view = try clusterNodes(askingPort: port)
        guard let masterID = view.first(where: { $0.flags.contains("myself") })?.masterID,
              let master = view.first(where: { $0.id == masterID }).flatMap({ node(port: $0.port) }) else { return false }
        let online = try master.onlineReplicaPorts()
        return try online.contains(port) && master.replicasConfirmWrites(online.count)
    }

    /// Moves an empty `slot` to the master on `port` (CLUSTER SETSLOT ... NODE on every master)
    /// and returns once every node sees it there.
    public func moveEmptySlot(_ slot: Int, to port: UInt16) throws {
        let target = try nodeID(port: port)
        // The new owner first, then the others: each learns it at once rather than by gossip.
        for node in [port] + nodes.map(\.port).filter({ $0 != port }) {
            let answer = try RedisServerProcess.run(port: node, ["CLUSTER", "SETSLOT", String(slot), "NODE", target])
            guard answer == "OK" else {
                throw RedisServerProcess.StartFailure(description: "CLUSTER SETSLOT on \(node): \(answer)")
            }
            if node == port {
                // Without a migration the new owner's claim does not outrank the old owner's
                // epoch: a heartbeat of the old owner still in flight (slow on a loaded machine)
                // could hand the slot back on some node, and the two would send a client to
                // each other. The highest epoch settles every disagreement for the new owner.
                _ = try RedisServerProcess.run(port: node, ["CLUSTER", "BUMPEPOCH"])
            }
        }
        try waitUntil("every node sees \(port) serving slot \(slot)") { try allSee(port, serving: slot) }
    }

    private func waitUntil(_ what: String, timeout: TimeInterval = 30, _ condition: () throws -> Bool) throws {
        guard try waitForState(timeout: timeout, condition) else {
            throw RedisServerProcess.StartFailure(description: "timed out waiting until \(what)")
        }
    }

    public func stop() { for node in nodes { node.stop() } }
}
