import Foundation

/// The real `chat-server` binary, started as a user would, on a free port.
public final class ChatServerProcess: Sendable {
    public let process: ChildProcess
    public let port: UInt16

    public init(_ extra: [String] = []) throws {
        process = try ChildProcess(BuildPaths.product("chat-server"),
                                   ["--port", "0", "--cert", TestCertificates.serverCertificate, "--key", TestCertificates.serverKey,
                                    "--log-level", "debug"] + extra)
        guard let line = process.waitForLine(timeout: 20, where: { $0.contains(" listening ") }),
              let address = line.split(separator: " ").first(where: { $0.hasPrefix("address=") }),
              let port = UInt16(address.split(separator: ":").last ?? "") else {
            let errors = process.finish(timeout: 1).errors
            throw ServerDidNotStart(output: errors)
        }
        self.port = port
    }

    public func stop() { process.terminate() }

    public struct ServerDidNotStart: Error { public let output: String }
}

/// A fresh temporary file path for a history database.
public func temporaryDatabasePath() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("qchat-test-\(UUID().uuidString).db").path
}
