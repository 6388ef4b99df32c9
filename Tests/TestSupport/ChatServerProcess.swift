import Foundation
import Glibc
import RuntimeCore

/// The ports of every node of each running cluster, by its first node's port: how a test's
/// clients, given `server.port` as ever, find the other nodes (``ChatServerProcess/nodePorts(of:)``).
private let clusterPorts = LockedValue<[UInt16: [UInt16]]>([:])

/// The real `chat-server` binary, started as a user would, on a free port; or, in cluster mode
/// (``ClusterMode``, or `nodes:`), several of them sharing a redis-server of their own.
public final class ChatServerProcess: Sendable {
    /// The (first) node's process and ports: what a test of one server uses.
    public let process: ChildProcess
    public let port: UInt16
    /// The metrics endpoint's port, when started with `--metrics`.
    public let metricsPort: UInt16?
    /// The other nodes of a cluster, `n2`, `n3`, ...; empty for one server.
    public let otherNodes: [ChatServerProcess]
    /// The Redis the nodes share; nil for one server (and for nodes on a Redis Cluster).
    public let redis: RedisServerProcess?
    /// Whether ``stop()`` stops ``redis`` too (it was made here, not given).
    private let ownsRedis: Bool
    /// The files folder the nodes share, made here (removed by ``stop()``).
    private let sharedFiles: String?

    /// On a free port with the test certificates, logging at debug, plus `extra`; as
    /// `ClusterMode.nodes` nodes when the environment asks for a cluster, unless `extra` makes the
    /// process a node of a cluster of the test's own (`--cluster`).
    public convenience init(_ extra: [String] = []) throws {
        try self.init(extra, nodes: extra.contains("--cluster") ? 1 : ClusterMode.nodes)
    }

    /// `nodes` processes with the same arguments plus `--cluster redis://127.0.0.1:PORT --node nK`
    /// (and `--files` in a temporary folder they share, unless `extra` names one: a file shared
    /// through one node is read through another) on `redis` (a fresh redis-server when nil), each ready (it has joined the node directory
    /// and takes hellos) when this returns; one node without a `redis` is one server without
    /// `--cluster`.
    public convenience init(_ extra: [String] = [], nodes: Int, redis: RedisServerProcess? = nil) throws {
        guard nodes > 1 || redis != nil else {
            try self.init(exactly: Self.testArguments + extra)
            return
        }
        let store = try redis ?? RedisServerProcess()
        try self.init(extra, nodes: nodes, storeURL: "redis://127.0.0.1:\(store.port)", redis: store, ownsRedis: redis == nil)
    }

    /// `nodes` processes as above on a Redis Cluster of the test's own (its nodes as the seeds);
    /// ``redis`` is nil, and ``stop()`` leaves the cluster to its owner.
    public convenience init(_ extra: [String] = [], nodes: Int, redisCluster: RedisClusterProcesses) throws {
        let seeds = redisCluster.ports.map { "127.0.0.1:\($0)" }.joined(separator: ",")
        try self.init(extra, nodes: nodes, storeURL: "redis-cluster://" + seeds, redis: nil, ownsRedis: false)
    }

    private static let testArguments = ["--port", "0", "--cert", TestCertificates.serverCertificate, "--key", TestCertificates.serverKey,
                                        "--log-level", "debug"]

    private convenience init(_ extra: [String], nodes: Int, storeURL: String, redis: RedisServerProcess?, ownsRedis: Bool) throws {
        let arguments = Self.testArguments + extra
        var shared = arguments
        var files: String?
        if !extra.contains("--files") {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-node-files-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            shared += ["--files", folder]
            files = folder
        }
        let cluster = { (node: Int) in shared + ["--cluster", storeURL, "--node", "n\(node)"] }
        var others: [ChatServerProcess] = []
        let first: Launched
        do {
            for node in stride(from: 2, through: nodes, by: 1) {
                others.append(try ChatServerProcess(exactly: cluster(node)))
            }
            first = try Launched(cluster(1), executable: BuildPaths.product("chat-server"))
            // Until it has joined the directory a node answers a hello `unavailable`.
            for process in [first.process] + others.map(\.process)
            where process.waitForLine(timeout: 20, where: { $0.contains(" cluster node ready ") }) == nil {
                let errors = process.finish(timeout: 1).errors
                first.process.terminate()
                throw ServerDidNotStart(output: errors)
            }
        } catch {
            for other in others { other.stop() }
            if let files { try? FileManager.default.removeItem(atPath: files) }
            throw error
        }
        self.init(first, otherNodes: others, redis: redis, ownsRedis: ownsRedis, sharedFiles: files)
        clusterPorts.withLock { $0[port] = ports }
    }

    /// With these arguments only (a configuration file may give the rest): always one process,
    /// whatever ``ClusterMode`` says; `executable` may be a program that runs chat-server
    /// (prlimit, say).
    public convenience init(exactly arguments: [String], executable: String = BuildPaths.product("chat-server")) throws {
        self.init(try Launched(arguments, executable: executable), otherNodes: [], redis: nil, ownsRedis: false, sharedFiles: nil)
    }

    private init(_ launched: Launched, otherNodes: [ChatServerProcess], redis: RedisServerProcess?, ownsRedis: Bool,
                 sharedFiles: String?) {
        process = launched.process
        port = launched.port
        metricsPort = launched.metricsPort
        self.otherNodes = otherNodes
        self.redis = redis
        self.ownsRedis = ownsRedis
        self.sharedFiles = sharedFiles
        // A port an earlier cluster had is this server's now.
        _ = clusterPorts.withLock { $0.removeValue(forKey: port) }
    }

    /// A process started and listening, with the ports its `listening` line gives.
    private struct Launched {
        let process: ChildProcess
        let port: UInt16
        let metricsPort: UInt16?

        init(_ arguments: [String], executable: String) throws {
            process = try ChildProcess(executable, arguments)
            guard let line = process.waitForLine(timeout: 20, where: { $0.contains(" listening ") }),
                  let address = line.split(separator: " ").first(where: { $0.hasPrefix("address=") }),
                  let port = UInt16(address.split(separator: ":").last ?? "") else {
                let errors = process.finish(timeout: 1).errors
                throw ServerDidNotStart(output: errors)
            }
            self.port = port
            metricsPort = line.split(separator: " ").first(where: { $0.hasPrefix("metrics=") })
                .flatMap { UInt16($0.split(separator: ":").last ?? "") }
        }
    }

    /// Every node, the first one (this) first.
    public var nodes: [ChatServerProcess] { [self] + otherNodes }

    /// The UDP port of every node, the first one first.
    public var ports: [UInt16] { [port] + otherNodes.map(\.port) }

    /// The ports of the nodes of the running cluster whose first node listens on `port`; just
    /// `[port]` for any other server.
    public static func nodePorts(of port: UInt16) -> [UInt16] {
        clusterPorts.withLock { $0[port] } ?? [port]
    }

    /// Stops every node (all told at once, so their shutdowns overlap), then their Redis and files
    /// folder if they were made for them.
    public func stop() {
        if !otherNodes.isEmpty { _ = clusterPorts.withLock { $0.removeValue(forKey: port) } }
        for node in nodes where node.process.isRunning { node.process.signal(SIGTERM) }
        for node in nodes { node.process.terminate() }
        if ownsRedis { redis?.stop() }
        if let sharedFiles { try? FileManager.default.removeItem(atPath: sharedFiles) }
    }

    public struct ServerDidNotStart: Error { public let output: String }
}

/// A fresh temporary file path for a history database.
public func temporaryDatabasePath() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("qchat-test-\(UUID().uuidString).db").path
}
