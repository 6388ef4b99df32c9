import TestSupport
import QuicEngine
import QuicSimulation
import Testing

@Suite("Engine in memory: migration")
struct InMemoryMigrationTests {
    /// A NAT rebinding (new client source port) mid-transfer: the server validates the new path,
    /// follows it, and the 4 MB transfer completes intact without a new connection.
    @Test func serverFollowsNATRebindingMidTransfer() throws {
        let pair = try EnginePair(impairment: .init(delay: .milliseconds(5)))
        #expect(pair.handshake())
        let stream = try pair.connection.openStream()
        let sender = BulkSender(payload: EngineFixtures.payload(count: 4 << 20), stream: stream)
        try sender.pump(pair.connection)
        var sink = StreamSink()
        let rebound = EngineFixtures.clientAddress.withPort(50001)
        var serverPaths: [SocketAddress] = []
        let onClient: (QuicConnection, QuicEvent) -> Void = { connection, event in
            if case .streamWritable(stream) = event { try? sender.pump(connection) }
            sink.take(event, stream: stream)
        }
        let onServer: (QuicConnection, QuicEvent) -> Void = { _, event in
            if case .pathChanged(_, let remote) = event { serverPaths.append(remote) }
        }
        pair.run(for: .seconds(60), until: { sink.checksum.count > 1 << 20 }, client: onClient, server: onServer)
        pair.network.rebinding[EngineFixtures.clientAddress] = rebound
        #expect(pair.run(for: .seconds(60), until: { sink.finished }, client: onClient, server: onServer))
        var expected = EngineFixtures.Checksum()
        expected.add(sender.payload)
        #expect(sink.checksum.value == expected.value)
        #expect(serverPaths == [rebound])
        #expect(pair.serverConnections.count == 1)
        #expect(pair.serverConnections.first?.remoteAddress == rebound)
    }

    /// The client moves itself to a new local address mid-transfer; both sides switch paths and
    /// the transfer completes intact.
    @Test func clientMigratesToNewLocalAddressMidTransfer() throws {
        let pair = try EnginePair(impairment: .init(delay: .milliseconds(5)))
        let newLocal = SocketAddress(host: "127.0.0.3", port: 50002)!
        pair.network.attach(pair.client, at: newLocal)
        #expect(pair.handshake())
        // Let the server's spare connection IDs arrive: migration needs an unused one.
        pair.run(for: .milliseconds(100))
        let stream = try pair.connection.openStream()
        let sender = BulkSender(payload: EngineFixtures.payload(count: 4 << 20), stream: stream)
        try sender.pump(pair.connection)
        var sink = StreamSink()
        var clientPaths: [SocketAddress] = []
        var serverPaths: [SocketAddress] = []
        let onClient: (QuicConnection, QuicEvent) -> Void = { connection, event in
            if case .streamWritable(stream) = event { try? sender.pump(connection) }
            if case .pathChanged(let local, _) = event { clientPaths.append(local) }
            sink.take(event, stream: stream)
        }
        let onServer: (QuicConnection, QuicEvent) -> Void = { _, event in
            if case .pathChanged(_, let remote) = event { serverPaths.append(remote) }
        }
        pair.run(for: .seconds(60), until: { sink.checksum.count > 1 << 20 }, client: onClient, server: onServer)
        try pair.client.migrate(pair.connection, to: newLocal, now: pair.network.now)
        #expect(pair.run(for: .seconds(60), until: { sink.finished }, client: onClient, server: onServer))
        var expected = EngineFixtures.Checksum()
        expected.add(sender.payload)
        #expect(sink.checksum.value == expected.value)
        #expect(clientPaths == [newLocal])
        #expect(serverPaths == [newLocal])
        #expect(pair.serverConnections.first?.remoteAddress == newLocal)
    }
}
