import Foundation

/// One `chat-bot` run (load or flood) with its JSON report going to a temporary file.
public final class BotRun {
    private let process: ChildProcess
    private let jsonPath: String
    private let home: String
    public private(set) var status: Int32 = -1
    public private(set) var report: [String: Any] = [:]
    public private(set) var text = ""

    /// Starts `chat-bot <command>` against `port`; `load` and `script` against every node of a
    /// cluster (``ChatServerProcess/nodePorts(of:)``), their bots spread round robin.
    public convenience init(_ command: String, port: UInt16, _ arguments: [String]) throws {
        let nodes = ChatServerProcess.nodePorts(of: port)
        let servers = nodes.count > 1 && ["load", "script"].contains(command)
            ? nodes.flatMap { ["--server", "127.0.0.1:\($0)"] } : ["--port", String(port)]
        try self.init(command, serverArguments: servers, arguments)
    }

    /// Starts `chat-bot <command>` with `--server` for each of `servers` (`HOST:PORT`), in order.
    public convenience init(_ command: String, servers: [String], _ arguments: [String]) throws {
        try self.init(command, serverArguments: servers.flatMap { ["--server", $0] }, arguments)
    }

    private init(_ command: String, serverArguments: [String], _ arguments: [String]) throws {
        let name = "chat-bot-\(UUID().uuidString)"
        jsonPath = FileManager.default.temporaryDirectory.appendingPathComponent(name + ".json").path
        // Never the real home's configuration or state.
        home = FileManager.default.temporaryDirectory.appendingPathComponent(name + "-home").path
        process = try ChildProcess(BuildPaths.product("chat-bot"),
                                   [command] + serverArguments + ["--ca", TestCertificates.ca, "--json", jsonPath] + arguments,
                                   environment: ["XDG_CONFIG_HOME": home + "/config", "XDG_STATE_HOME": home + "/state"])
    }

    /// Waits for a line of the bot's output (its progress lines go to standard error).
    public func waitForLine(timeout: TimeInterval, where matches: (String) -> Bool) -> String? {
        process.waitForLine(timeout: timeout, where: matches)
    }

    /// How many lines of the bot's output so far `match`.
    public func lineCount(where matches: (String) -> Bool) -> Int { process.lineCount(where: matches) }

    deinit {
        try? FileManager.default.removeItem(atPath: jsonPath)
        try? FileManager.default.removeItem(atPath: home)
    }

    /// Waits for the bot to exit and reads its report.
    @discardableResult
    public func finish(timeout: TimeInterval = 90) -> BotRun {
        let finished = process.finish(timeout: timeout)
        status = finished.status
        text = finished.output + "\n" + finished.errors
        let data = (try? Data(contentsOf: URL(fileURLWithPath: jsonPath))) ?? Data()
        report = (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
        return self
    }

    /// Runs `chat-bot <command>` to its end.
    public static func run(_ command: String, port: UInt16, _ arguments: [String], timeout: TimeInterval = 90) throws -> BotRun {
        try BotRun(command, port: port, arguments).finish(timeout: timeout)
    }

    public func section(_ name: String) -> [String: Any] { report[name] as? [String: Any] ?? [:] }

    public var deliveries: [String: Any] { section("deliveries") }

    public var latency: [String: Double] { deliveries["latency_ms"] as? [String: Double] ?? [:] }

    /// The load figures docs/RELIABILITY.md quotes, on one line.
    public var summary: String {
        let messages = section("messages"), delivered = deliveries
        return "sent \(messages["sent_measured"] ?? "?") measured, deliveries \(delivered["delivered"] ?? "?") of "
            + "\(delivered["expected"] ?? "?"), duplicated \(delivered["duplicated"] ?? "?"), lost \(delivered["lost"] ?? "?"), "
            + "out of order \(delivered["out_of_order"] ?? "?"), p50 \(latency["p50"] ?? -1) ms, p99 \(latency["p99"] ?? -1) ms"
    }

    /// Every measured message reached every member once, in order.
    public var lostNothing: Bool {
        deliveries["expected"] as? Int == deliveries["delivered"] as? Int && deliveries["lost"] as? Int == 0
            && deliveries["duplicated"] as? Int == 0 && deliveries["out_of_order"] as? Int == 0
    }
}
