import Foundation
import Glibc
import TestSupport

/// A real `chat-server` started with `--config FILE` only, its settings in a temporary folder
/// that the test rewrites before sending SIGHUP.
final class ConfiguredServer: Sendable {
    let directory: String
    let file: String
    /// The settings every version of the file starts with: a free port, the test certificates
    /// (copied into the folder, so a test can renew them in place), debug logs, metrics.
    let base: String
    let server: ChatServerProcess

    init(_ settings: String, arguments: [String] = []) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-config-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: TestCertificates.serverCertificate, toPath: directory + "/server.pem")
        try FileManager.default.copyItem(atPath: TestCertificates.serverKey, toPath: directory + "/server.key")
        file = directory + "/chat-server.conf"
        base = "port = 0\ncert = \(directory)/server.pem\nkey = \(directory)/server.key\nlog-level = debug\n"
            + "metrics = 127.0.0.1:0\nmetrics-cache = 0\n"
        try (base + settings).write(toFile: file, atomically: true, encoding: .utf8)
        server = try ChatServerProcess(exactly: ["--config", file] + arguments)
    }

    var port: UInt16 { server.port }
    var process: ChildProcess { server.process }

    /// Replaces the file with the base settings and `settings`.
    func rewrite(_ settings: String) throws {
        try (base + settings).write(toFile: file, atomically: true, encoding: .utf8)
    }

    /// Puts a certificate and key in place of the ones the file names, as a renewal does.
    func renewCertificate(_ certificate: String, key: String) throws {
        for (source, target) in [(certificate, "server.pem"), (key, "server.key")] {
            let data = try Data(contentsOf: URL(fileURLWithPath: source))
            try data.write(to: URL(fileURLWithPath: directory + "/" + target), options: .atomic)
        }
    }

    /// Sends SIGHUP and returns the server's log line about this reload (done or failed).
    func reload() -> String? {
        let isReloadLine: (String) -> Bool = { $0.contains(" configuration reloaded ") || $0.contains(" configuration reload failed ") }
        let earlier = process.lineCount(where: isReloadLine)
        process.signal(SIGHUP)
        return process.waitForLine(timeout: 10, skipping: earlier, where: isReloadLine)
    }

    /// The metrics page, as numbers.
    func metrics() throws -> ScrapedMetrics {
        ScrapedMetrics(try HTTPProbe.get(port: try server.metricsPort.orThrow()).body)
    }

    func stop() {
        server.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

extension Optional {
    struct Missing: Error {}

    func orThrow() throws -> Wrapped {
        guard let self else { throw Missing() }
        return self
    }
}
