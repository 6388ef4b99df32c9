import Foundation
import Glibc
import RuntimeCore

/// The redis-servers of this test process that are running, with their folders: killed and
/// removed when the process exits, in case a test's last reference was still held elsewhere
/// then (a dedicated thread's closure is released after its test has returned, and the run can
/// end before it is). A crash of the test process itself can still leave them: see pgrep.
private let runningRedisServers = LockedValue<[Int32: String]>([:])
private let exitCleanup: Void = {
    atexit {
        for (pid, directory) in runningRedisServers.withLock({ $0 }) {
            kill(pid, SIGKILL)
            try? FileManager.default.removeItem(atPath: directory)
        }
    }
}()

/// A real `redis-server` of the test's own, on a free loopback port with its data in a
/// temporary folder: never a system Redis. `kill9()` and `restart()` keep the port and the
/// folder, so a test can crash it and bring back what it persisted. Stopped (and its folder
/// removed) when released.
public final class RedisServerProcess: @unchecked Sendable {
    // @unchecked: used from one test's thread; `process` is replaced only by restart().
    public struct Options: Sendable {
        /// AOF persistence, and how often it is fsynced ("always", "everysec", "no").
        public var appendOnly = false
        public var appendFsync = "everysec"
        /// A Redis Cluster node (cluster bus on its own free port).
        public var clusterEnabled = false
        /// Further `--name value` pairs.
        public var extra: [String] = []

        public init(appendOnly: Bool = false, appendFsync: String = "everysec", clusterEnabled: Bool = false, extra: [String] = []) {
            self.appendOnly = appendOnly
            self.appendFsync = appendFsync
            self.clusterEnabled = clusterEnabled
            self.extra = extra
        }
    }

    public struct StartFailure: Error, CustomStringConvertible {
        public let description: String
    }

    public static let executable = "/usr/bin/redis-server"
    public static let cli = "/usr/bin/redis-cli"
    public let port: UInt16
    public let clusterPort: UInt16?
    public let directory: URL
    public let options: Options
    private var process: ChildProcess?

    public init(options: Options = Options()) throws {
        self.options = options
        port = try FreePort.tcp()
        clusterPort = options.clusterEnabled ? try FreePort.tcp() : nil
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-redis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try start()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    private func forget() {
        guard let pid = process?.processIdentifier else { return }
        _ = runningRedisServers.withLock { $0.removeValue(forKey: pid) }
    }

    public var isRunning: Bool { process?.isRunning ?? false }
    public var processIdentifier: Int32 { process?.processIdentifier ?? -1 }

    private var arguments: [String] {
        var arguments = ["--port", String(port), "--bind", "127.0.0.1", "--dir", directory.path,
                         "--save", "", "--daemonize", "no", "--logfile", "", "--protected-mode", "no",
                         "--appendonly", options.appendOnly ? "yes" : "no", "--appendfsync", options.appendFsync]
        if let clusterPort {
            arguments += ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                          "--cluster-port", String(clusterPort), "--cluster-node-timeout", "2000",
                          "--cluster-require-full-coverage", "no"]
        }
        return arguments + options.extra
    }

    /// Starts the server and waits for it to say it accepts connections.
    private func start() throws {
        _ = exitCleanup
        let child = try ChildProcess(Self.executable, arguments)
        process = child
        let folder = directory.path
        runningRedisServers.withLock { $0[child.processIdentifier] = folder }
        guard child.waitForLine(timeout: 20, where: { $0.contains("Ready to accept connections") }) != nil else {
            let output = child.finish(timeout: 1)
            throw StartFailure(description: "redis-server did not start on \(port): \(output.output) \(output.errors)")
        }
    }

    /// SIGKILL: a crash, no shutdown work (what was not fsynced is lost as it would be).
    public func kill9() {
        guard let process else { return }
        process.signal(SIGKILL)
        _ = process.waitForExit(timeout: 10)
        _ = process.finish(timeout: 1)
        forget()
    }

    /// Stops the process (SIGSTOP) so that connections stay open and nothing answers.
    public func freeze() { process?.signal(SIGSTOP) }

    public func thaw() { process?.signal(SIGCONT) }

    /// Starts the server again on the same port with the same folder (after `kill9()`).
    public func restart() throws {
        if let process, process.isRunning { kill9() }
        try start()
    }

    /// Stops the server for good: SHUTDOWN (the AOF is flushed), SIGKILL if it is still there
    /// after 10 s. Not SIGTERM: a child started from a thread that blocks SIGTERM inherits the
    /// mask and would sit out ChildProcess's 5 s grace period.
    public func stop() {
        guard let process, process.isRunning else { return forget() }
        _ = try? Self.run(port: port, ["SHUTDOWN", "NOSAVE"])
        if !process.waitForExit(timeout: 10) { process.signal(SIGKILL) }
        process.terminate()
        forget()
    }

    /// Waits for a line of the server's log that contains `text`.
    public func waitForLog(_ text: String, timeout: TimeInterval = 20) -> Bool {
        process?.waitForLine(timeout: timeout) { $0.contains(text) } != nil
    }

    /// The ports of the replicas this master has online (INFO replication:
    /// `slaveN:ip=...,port=P,state=online,...`): those a WAIT counts.
    public func onlineReplicaPorts() throws -> [UInt16] {
        try cli("INFO", "replication").split(whereSeparator: \.isNewline).filter { $0.hasPrefix("slave") && $0.contains("state=online") }
            .compactMap { line in
                line.split(separator: ",").first { $0.hasPrefix("port=") }.flatMap { UInt16($0.dropFirst(5)) }
            }
    }

    /// Whether `replicas` replicas of this master confirm a write made now: FUNCTION FLUSH (a
    /// write any master takes whatever its slots, leaving nothing behind), then WAIT on the same
    /// connection. More than INFO's `state=online`, which Redis 7.0 reports for a replica that has
    /// just synced before it streams to it (it starts on the replica's next ACK, within a second).
    public func replicasConfirmWrites(_ replicas: Int = 1) throws -> Bool {
        let child = try ChildProcess(Self.cli, ["-h", "127.0.0.1", "-p", String(port)])
        child.write("FUNCTION FLUSH\nWAIT \(replicas) 100\n")
        child.closeInput()
        let answers = child.finish(timeout: 30).output.split(whereSeparator: \.isNewline)
        return answers.last.flatMap { Int($0) }.map { $0 >= replicas } ?? false
    }

    /// Whether the server's log has a line that contains `text` (now, without waiting).
    public func hasLogged(_ text: String) -> Bool { (process?.lineCount { $0.contains(text) } ?? 0) > 0 }

    /// Runs `redis-cli` against this server and returns its output (trimmed).
    @discardableResult
    public func cli(_ arguments: String...) throws -> String { try Self.run(port: port, arguments) }

    public static func run(port: UInt16, _ arguments: [String]) throws -> String {
        let child = try ChildProcess(cli, ["-h", "127.0.0.1", "-p", String(port)] + arguments, standardInput: "/dev/null")
        let result = child.finish(timeout: 30)
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
