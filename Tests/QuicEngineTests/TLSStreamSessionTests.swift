import Foundation
import Glibc
import QuicIO
import TestSupport
import Testing

/// The sans-IO TLS stream session over a real TCP socket against GnuTLS's own `gnutls-serv`
/// (installed by `make deps` with gnutls-bin), with the test certificates.
@Suite("TLS stream session", .serialized)
struct TLSStreamSessionTests {
    /// An echo server on a free loopback port.
    private static func startEchoServer() throws -> (ChildProcess, UInt16) {
        for _ in 0..<5 {
            let port = try FreePort.tcp()
            let server = try ChildProcess("/usr/bin/gnutls-serv", [
                "--echo", "--x509certfile", TestCertificates.serverCertificate, "--x509keyfile", TestCertificates.serverKey,
                "--port", String(port),
            ])
            if server.waitForLine(timeout: 10, where: { $0.contains("listening on IPv4") }) != nil { return (server, port) }
            stop(server)
        }
        throw EchoServerDidNotStart()
    }

    struct EchoServerDidNotStart: Error {}

    /// gnutls-serv ignores SIGTERM while it waits in a handshake: it is killed.
    private static func stop(_ server: ChildProcess) {
        server.signal(SIGKILL)
        _ = server.finish(timeout: 5)
    }

    private static func waitFor(_ stream: TCPStream, events: Int16, _ seconds: Double) -> Bool {
        var descriptor = pollfd(fd: stream.descriptor, events: events, revents: 0)
        return poll(&descriptor, 1, Int32(seconds * 1000)) == 1
    }

    /// Connects and drives `session` over the socket until `done` says so (or 10 s pass): the
    /// loop an application runs on its event loop, written out with poll.
    private static func drive(_ session: TLSStreamSession, over stream: TCPStream, received: inout [UInt8],
                              until done: (TLSStreamSession, [UInt8]) -> Bool) throws {
        #expect(waitFor(stream, events: Int16(POLLOUT), TestTime.scaled(5)))
        try stream.finishConnect()
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(TestTime.scaled(10))
        try session.process()
        try session.writeCiphertext { try stream.write($0) }
        while !done(session, received) && Date() < deadline && session.state != .closed {
            guard waitFor(stream, events: Int16(POLLIN), 0.2) else { continue }
            let count = try buffer.withUnsafeMutableBytes { try stream.read(into: $0) }
            if count == 0 { break }
            if let count { buffer.withUnsafeBytes { session.receive(UnsafeRawBufferPointer(rebasing: $0[..<count])) } }
            try session.process()
            session.readPlaintext(into: &received)
            try session.writeCiphertext { try stream.write($0) }
        }
    }

    private static func connect(_ configuration: TLSStreamConfiguration, port: UInt16) throws -> (TCPStream, TLSStreamSession) {
        let stream = try TCPStream(connectingTo: .v4(address: 0x7F00_0001, port: port))
        return (stream, try TLSStreamSession(context: TLSStreamContext(configuration)))
    }

    /// Verifying the server against the CA that signed it for the name it carries, the handshake
    /// completes with TLS 1.3 and AES-128-GCM, and what is sent (a line queued before the
    /// handshake finished, then 40 KB spanning several records) comes back byte for byte.
    @Test func handshakesVerifiesAndEchoes() throws {
        let (server, port) = try Self.startEchoServer()
        defer { Self.stop(server) }
        let (stream, session) = try Self.connect(TLSStreamConfiguration(trustedCAPath: TestCertificates.ca, serverName: "localhost"), port: port)
        let first = Array("hello over TLS\n".utf8)
        session.send(first)
        var received: [UInt8] = []
        try Self.drive(session, over: stream, received: &received) { _, bytes in bytes.count >= first.count }
        #expect(session.state == .established)
        #expect(received == first, "\(received.count) bytes")
        let description = try #require(session.negotiatedDescription)
        #expect(description.contains("TLS1.3") && description.contains("AES-128-GCM"), "\(description)")
        // 40,000 bytes: more than two 16 KiB records each way.
        let large = (0..<40_000).map { UInt8(ascii: "a") + UInt8($0 % 26) } + [10]
        session.send(large)
        received.removeAll()
        try session.process()
        try Self.drive(session, over: stream, received: &received) { _, bytes in bytes.count >= large.count }
        #expect(received == large, "\(received.count) bytes of \(large.count)")
        session.close()
        #expect(session.state == .closed)
        try session.writeCiphertext { try stream.write($0) }
    }

    /// The server's IP address is a name its certificate carries too (an IP SAN): verification
    /// against 127.0.0.1 passes, as chat-bot irc-load's default host needs.
    @Test func verifiesAnIPAddressName() throws {
        let (server, port) = try Self.startEchoServer()
        defer { Self.stop(server) }
        let (stream, session) = try Self.connect(TLSStreamConfiguration(trustedCAPath: TestCertificates.ca, serverName: "127.0.0.1"), port: port)
        var received: [UInt8] = []
        try Self.drive(session, over: stream, received: &received) { session, _ in session.state == .established }
        #expect(session.state == .established)
    }

    /// A server whose certificate another CA signed is refused during the handshake, with
    /// GnuTLS's reason; the insecure switch accepts the same server.
    @Test func refusesAServerTheCADidNotSign() throws {
        let (server, port) = try Self.startEchoServer()
        defer { Self.stop(server) }
        let (stream, session) = try Self.connect(TLSStreamConfiguration(trustedCAPath: TestCertificates.otherCA, serverName: "localhost"), port: port)
        var received: [UInt8] = []
        let error = #expect(throws: QuicError.self) {
            try Self.drive(session, over: stream, received: &received) { session, _ in session.state == .established }
        }
        #expect("\(error.map { "\($0)" } ?? "")".contains("certificate verification failed"), "\(String(describing: error))")
        #expect(session.state == .closed)
        stream.close()  // gnutls-serv serves one handshake at a time

        let (insecureStream, insecure) = try Self.connect(TLSStreamConfiguration(insecureSkipVerification: true), port: port)
        try Self.drive(insecure, over: insecureStream, received: &received) { session, _ in session.state == .established }
        #expect(insecure.state == .established)
    }

    /// A certificate for localhost is refused for another name, even from the right CA.
    @Test func refusesTheWrongServerName() throws {
        let (server, port) = try Self.startEchoServer()
        defer { Self.stop(server) }
        let (stream, session) = try Self.connect(TLSStreamConfiguration(trustedCAPath: TestCertificates.ca, serverName: "irc.example.org"), port: port)
        var received: [UInt8] = []
        #expect(throws: QuicError.self) {
            try Self.drive(session, over: stream, received: &received) { session, _ in session.state == .established }
        }
    }

    /// Without a CA file and without the insecure switch a context cannot be made.
    @Test func verificationNeedsACAFile() {
        #expect(throws: QuicError.self) { try TLSStreamContext(TLSStreamConfiguration(serverName: "localhost")) }
    }

    /// Connecting to a port nobody listens on fails at `finishConnect` with ECONNREFUSED.
    @Test func refusedConnectIsReported() throws {
        let stream = try TCPStream(connectingTo: .v4(address: 0x7F00_0001, port: try FreePort.tcp()))
        #expect(Self.waitFor(stream, events: Int16(POLLOUT), TestTime.scaled(5)))
        #expect(throws: SystemCallError(function: "connect 127.0.0.1:\(stream.remote.port)", errno: ECONNREFUSED,
                                        message: String(cString: strerror(ECONNREFUSED)))) { try stream.finishConnect() }
    }
}
