import TestSupport
import Foundation
import Testing

/// Our engine against aioquic, an independent QUIC implementation, in both directions.
@Suite("Interop with aioquic", .serialized)
struct InteropTests {
    static var peerScript: String { BuildPaths.repository.appendingPathComponent("tools/interop/aioquic_peer.py").path }
    static var python: String {
        guard let python = AioquicVenv.python else { preconditionFailure("aioquic venv setup failed (see standard error)") }
        return python
    }

    /// Starts a server that prints `READY <port>` and returns it with that port.
    private static func startServer(_ executable: String, _ arguments: [String]) throws -> (ChildProcess, String) {
        let server = try ChildProcess(executable, arguments + ["--cert", TestCertificates.serverCertificate,
                                                               "--key", TestCertificates.serverKey, "--alpn", "qchat/1"])
        guard let ready = server.waitForLine(prefix: "READY", timeout: 30) else {
            server.terminate()
            throw ServerNotReady()
        }
        return (server, String(ready.split(separator: " ")[1]))
    }

    private static func ourServer() throws -> (ChildProcess, String) {
        try startServer(BuildPaths.product("quic-echo"), ["server", "--port", "0"])
    }

    /// The aioquic client against `port`, trusting `ca`; `extra` adds flags.
    private static func aioquicClient(port: String, ca: String, _ extra: [String] = []) throws -> ChildProcess {
        try ChildProcess(python, [peerScript, "client", "--host", "127.0.0.1", "--port", port, "--alpn", "qchat/1",
                                  "--ca", ca, "--server-name", "localhost"] + extra)
    }

    struct ServerNotReady: Error {}

    /// Our client completes a handshake with the aioquic server, echoes 200 KB on a stream and
    /// gets datagram echoes back.
    @Test func ourClientAgainstAioquicServer() throws {
        let (server, port) = try Self.startServer(Self.python, [Self.peerScript, "server", "--host", "127.0.0.1", "--port", "0"])
        defer { server.terminate() }
        let client = try ChildProcess(BuildPaths.product("quic-echo"),
                                      ["client", "--port", port, "--alpn", "qchat/1", "--ca", TestCertificates.ca,
                                       "--server-name", "localhost", "--bytes", "200000", "--datagrams", "3"])
        let result = client.finish(timeout: 30)
        #expect(result.status == 0, "\(result.output) \(result.errors)")
        #expect(result.output.contains("\"stream_ok\": true"))
        #expect(result.output.contains("\"alpn\": \"qchat/1\""))
        #expect(!result.output.contains("\"datagrams_echoed\": 0"))
    }

    /// The aioquic client completes a handshake with our server (verifying our certificate),
    /// echoes 200 KB on a stream and gets datagram echoes back.
    @Test func aioquicClientAgainstOurServer() throws {
        let (server, port) = try Self.ourServer()
        defer { server.terminate() }
        let client = try Self.aioquicClient(port: port, ca: TestCertificates.ca, ["--bytes", "200000", "--datagrams", "3"])
        let result = client.finish(timeout: 60)
        #expect(result.status == 0, "\(result.output) \(result.errors)")
        #expect(result.output.contains("\"ok\": true"))
        #expect(result.output.contains("\"stream_ok\": true"))
    }

    /// aioquic refuses our server's certificate when it trusts another CA (our side of the
    /// failure is a clean close, not a crash: the server keeps serving the next client).
    @Test func aioquicRejectsUntrustedServerThenServerStillServes() throws {
        let (server, port) = try Self.ourServer()
        defer { server.terminate() }
        #expect(try Self.aioquicClient(port: port, ca: TestCertificates.otherCA).finish(timeout: 30).status == 2)
        #expect(try Self.aioquicClient(port: port, ca: TestCertificates.ca).finish(timeout: 30).status == 0)
        #expect(server.isRunning)
    }
}
