import TestSupport
import Testing

/// Bad flags and files: one clear line on stderr naming what is wrong, exit status 2, no crash.
@Suite("chat-server command line")
struct CommandLineTests {
    static let mistakes: [(arguments: [String], says: String)] = [
        (["--port", "70000"], "--port must be a whole number in 0...65535"),
        (["--retry-above", "-1"], "--retry-above must be a whole number"),
        (["--sendq", "10"], "--sendq must be a whole number in 4096"),
        (["--max-clients", "0"], "--max-clients must be"),
        (["--flood-rate", "0"], "--flood-rate must be"),
        (["--typing-rate", "fast"], "--typing-rate must be"),
        (["--history", "0"], "--history must be"),
        (["--max-per-address", "0"], "--max-per-address must be"),
        (["--exempt", "10.0.0.0/33"], "--exempt must be an address or CIDR block"),
        (["--exempt", "localhost"], "--exempt must be an address or CIDR block"),
        (["--replay-limit", "100"], "--replay-limit must be a whole number in 65536"),
        (["--coalesce-ms", "26"], "--coalesce-ms must be a number in 0.0...25.0, not '26'"),
        (["--coalesce-ms", "-1"], "--coalesce-ms must be a number in 0.0...25.0"),
        (["--idle-memory-after", "3601"], "--idle-memory-after must be a number in 0.0...3600.0"),
        (["--max-rooms-per-client", "0"], "--max-rooms-per-client must be"),
        (["--idle-rooms", "-1"], "--idle-rooms must be"),
        (["--log-level", "loud"], "--log-level must be debug, info, warning or error"),
        (["--operator", "admin=sha256:12ab"], "--operator takes NAME=sha256: and a certificate's 64 hex digits"),
        (["--operator", "admin=" + String(repeating: "a", count: 64)], "--operator takes NAME=sha256:"),
        (["--cluster-wait-replicas", "1"], "--cluster-wait-replicas is for a node of a cluster: give --cluster too"),
        (["--cluster", "redis://127.0.0.1:1", "--cluster-wait-replicas", "6"], "--cluster-wait-replicas must be a whole number in 0...5, not '6'"),
        (["--cluster-node-timeout", "10"], "--cluster-node-timeout is for a node of a cluster: give --cluster too"),
        (["--cluster", "redis://127.0.0.1:1", "--cluster-node-timeout", "2"], "--cluster-node-timeout must be a number in 3.0...120.0, not '2'"),
        (["--bogus"], "bogus"),
        (["extra"], "unexpected argument 'extra'"),
    ]

    @Test(arguments: mistakes)
    func refused(_ mistake: (arguments: [String], says: String)) throws {
        let server = try ChildProcess(BuildPaths.product("chat-server"),
                                      ["--port", "0", "--cert", TestCertificates.serverCertificate, "--key", TestCertificates.serverKey]
                                          + mistake.arguments)
        let finished = server.finish(timeout: 10)
        #expect(finished.status == 2, "\(finished.errors)")
        #expect(finished.errors.contains(mistake.says), "\(finished.errors)")
        #expect(finished.errors.split(separator: "\n").count == 1, "\(finished.errors)")
    }

    @Test func unreadableCertificateIsNamed() throws {
        let server = try ChildProcess(BuildPaths.product("chat-server"),
                                      ["--port", "0", "--cert", "/nonexistent/server.pem", "--key", TestCertificates.serverKey])
        let finished = server.finish(timeout: 10)
        #expect(finished.status == 2)
        #expect(finished.errors.contains("/nonexistent/server.pem"), "\(finished.errors)")
    }
}
