import QuicEngine
import QuicSimulation
import TestSupport
import Testing

/// A running server endpoint reconfigured (chat-server's SIGHUP): new handshakes get the new
/// credentials and limits, open connections keep theirs, and bad files change nothing.
@Suite("Engine in memory: reconfiguring a server")
struct InMemoryReconfigurationTests {
    private static func connect(_ pair: EnginePair, from port: UInt16, ca: String = TestCertificates.ca) throws -> QuicConnection {
        let local = SocketAddress(host: "127.0.0.3", port: port)!
        pair.network.attach(pair.client, at: local)
        return try pair.client.connect(to: EngineFixtures.serverAddress, from: local,
                                       configuration: EngineFixtures.clientConfiguration(ca: ca), now: pair.network.now)
    }

    private static func renewed() -> QuicServerConfiguration {
        QuicServerConfiguration(connection: QuicConfiguration(tls: QuicTLSConfiguration(
            certificateChainPath: TestCertificates.renewedServerCertificate, privateKeyPath: TestCertificates.renewedServerKey,
            alpn: [EngineFixtures.alpn])))
    }

    /// After the swap, a client trusting only the old CA fails its handshake, one trusting the new CA completes it, and the first connection still echoes.
    @Test func newCredentialsServeTheNextHandshake() throws {
        let pair = try EnginePair()
        #expect(pair.handshake())
        try pair.server.reconfigure(server: Self.renewed())
        let oldTrust = try Self.connect(pair, from: 40001)
        let newTrust = try Self.connect(pair, from: 40002, ca: TestCertificates.otherCA)
        #expect(pair.run(for: .seconds(5), until: { oldTrust.closeReason != nil && newTrust.isEstablished }))
        #expect(oldTrust.closeReason.map { if case .tlsFailure = $0.kind { true } else { false } } == true, "\(String(describing: oldTrust.closeReason))")
        var echoed: [UInt8] = []
        let stream = try pair.connection.openStream()
        try pair.connection.write(Array("still here".utf8), to: stream, fin: true)
        #expect(pair.run(for: .seconds(5), until: { String(decoding: echoed, as: UTF8.self) == "still here" }, client: { connection, event in
            if connection === pair.connection, case .streamData(stream, let bytes, _) = event { echoed += bytes }
        }))
        #expect(pair.connection.isEstablished)
    }

    /// A missing certificate throws and keeps the running credentials: the next client still completes its handshake.
    @Test func missingFilesChangeNothing() throws {
        let pair = try EnginePair()
        #expect(pair.handshake())
        var broken = EngineFixtures.serverConfiguration()
        broken.connection.tls.certificateChainPath = "/nonexistent/server.pem"
        broken.maxConnections = 1
        #expect(throws: QuicError.self) { try pair.server.reconfigure(server: broken) }
        let next = try Self.connect(pair, from: 40003)
        #expect(pair.run(for: .seconds(5), until: { next.isEstablished }))
    }

    /// A lowered connection limit refuses the next client and leaves the open connection alone; a client endpoint has no server settings to change.
    @Test func newLimitsApplyToNewConnections() throws {
        let pair = try EnginePair()
        #expect(pair.handshake())
        var fewer = EngineFixtures.serverConfiguration()
        fewer.maxConnections = 1
        try pair.server.reconfigure(server: fewer)
        let refused = try Self.connect(pair, from: 40004)
        #expect(pair.run(for: .seconds(5), until: { refused.closeReason != nil }))
        #expect(refused.closeReason?.kind == .transport(code: 0x2))
        #expect(pair.connection.isEstablished)
        #expect(throws: QuicError.self) { try pair.client.reconfigure(server: fewer) }
    }
}

/// What the endpoint counts for the metrics page: every byte and datagram sent, and the stream
/// packets lost, which do not go back down when a connection goes.
@Suite("Engine in memory: figures for metrics")
struct InMemoryEndpointFiguresTests {
    /// Through a link losing 10%, the server counts lost stream packets (retransmitted, since everything arrives), keeps them after the connection is gone, and counts what it sent.
    @Test func lostStreamPacketsAndBytesSent() throws {
        let pair = try EnginePair(impairment: .init(loss: 0.1), seed: 5)
        #expect(pair.handshake())
        let stream = try pair.connection.openStream()
        let sender = BulkSender(payload: EngineFixtures.payload(count: 2 << 20), stream: stream)
        try sender.pump(pair.connection)
        var received = 0
        #expect(pair.run(for: .seconds(60), until: { received == 2 << 20 }, client: { connection, event in
            if case .streamWritable(stream) = event { try? sender.pump(connection) }
            if case .streamData(stream, let bytes, _) = event { received += bytes.count }
        }))
        let lost = pair.server.streamPacketsLost
        #expect(lost > 0)
        #expect(pair.server.statistics.bytesSent > 2 << 20)
        #expect(pair.server.statistics.datagramsSent > (2 << 20) / 1500)
        pair.connection.close(applicationCode: 0)
        #expect(pair.run(for: .seconds(10), until: { pair.server.connectionCount == 0 }))
        #expect(pair.server.streamPacketsLost >= lost)
        #expect(pair.server.statistics.streamPacketsLostByRemovedConnections >= lost)
    }
}
