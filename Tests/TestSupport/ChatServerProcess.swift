import Foundation

/// The real `chat-server` binary, started as a user would, on a free port.
public final class ChatServerProcess: Sendable {
    public let process: ChildProcess
    public let port: UInt16
    /// The metrics endpoint's port, when started with `--metrics`.
    public let metricsPort: UInt16?

    /// On a free port with the test certificates, logging at debug, plus `extra`.
    public convenience init(_ extra: [String] = []) throws {
        try self.init(exactly: ["--port", "0", "--cert", TestCertificates.serverCertificate, "--key", TestCertificates.serverKey,
                                "--log-level", "debug"] + extra)
    }

    /// With these arguments only (a configuration file may give the rest); `executable` may be a
    /// program that runs chat-server (prlimit, say).
    public init(exactly arguments: [String], executable: String = BuildPaths.product("chat-server")) throws {
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

    public func stop() { process.terminate() }

    public struct ServerDidNotStart: Error { public let output: String }
}

/// A fresh temporary file path for a history database.
public func temporaryDatabasePath() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("qchat-test-\(UUID().uuidString).db").path
}
