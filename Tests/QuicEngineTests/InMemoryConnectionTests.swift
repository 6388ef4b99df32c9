import TestSupport
import QuicEngine
import QuicSimulation
import SplitMix
import Testing

@Suite("Engine in memory, virtual clock")
struct InMemoryConnectionTests {
    /// The handshake completes on both sides with the negotiated ALPN visible to each.
    @Test func handshakeNegotiatesALPN() throws {
        let pair = try EnginePair()
        #expect(pair.handshake())
        #expect(pair.connection.negotiatedALPN == EngineFixtures.alpn)
        #expect(pair.serverConnections.first?.negotiatedALPN == EngineFixtures.alpn)
        #expect(pair.serverEvents.contains { if case .accepted = $0 { return true } else { return false } })
        #expect(pair.connection.statistics.smoothedRTT > .zero)
    }

    /// Bytes written on a client stream come back from the echo server in order, with FIN.
    @Test func streamEcho() throws {
        let pair = try EnginePair()
        #expect(pair.handshake())
        let stream = try pair.connection.openStream()
        let message = Array("hello, qchat".utf8)
        try pair.connection.write(message, to: stream, fin: true)
        var received: [UInt8] = []
        var finished = false
        #expect(pair.run(until: { finished }, client: { _, event in
            if case .streamData(stream, let bytes, let fin) = event {
                received += bytes
                finished = fin
            }
        }))
        #expect(received == message)
        #expect(pair.serverEvents.contains { if case .streamOpened(stream) = $0 { return true } else { return false } })
    }

    /// 20 MB go through one stream and come back intact (checksum) with back-pressure.
    @Test func twentyMegabyteEcho() throws {
        try transferAndCompare(impairment: .init(), megabytes: 20)
    }

    /// The same 20 MB survive 10% loss, reordering by jitter, and 1% duplication.
    @Test func twentyMegabytesThroughLossReorderingAndDuplication() throws {
        try transferAndCompare(impairment: .init(loss: 0.10, duplication: 0.01, delay: .milliseconds(10), jitter: .milliseconds(8)),
                               megabytes: 20)
    }

    private func transferAndCompare(impairment: SimulatedNetwork.Impairment, megabytes: Int) throws {
        let pair = try EnginePair(impairment: impairment, seed: 42)
        #expect(pair.handshake())
        let stream = try pair.connection.openStream()
        let sender = BulkSender(payload: EngineFixtures.payload(count: megabytes << 20), stream: stream)
        var expected = EngineFixtures.Checksum()
        expected.add(sender.payload)
        try sender.pump(pair.connection)
        var sink = StreamSink()
        let done = pair.run(for: .seconds(600), until: { sink.finished }, client: { connection, event in
            if case .streamWritable(stream) = event { try? sender.pump(connection) }
            sink.take(event, stream: stream)
        })
        #expect(done)
        #expect(sender.finished)
        #expect(sink.checksum.count == expected.count)
        #expect(sink.checksum.value == expected.value)
    }

    /// Datagrams go both ways; the size limit is queryable and enforced, empty ones are refused.
    @Test func datagramsBothWays() throws {
        let pair = try EnginePair()
        #expect(pair.handshake())
        let limit = try #require(pair.connection.maxDatagramPayloadSize)
        #expect(limit >= 1100 && limit <= 1197)
        #expect(throws: QuicError.datagramTooLarge(size: limit + 1, limit: limit)) {
            try pair.connection.sendDatagram([UInt8](repeating: 1, count: limit + 1))
        }
        #expect(throws: QuicError.emptyDatagram) { try pair.connection.sendDatagram([]) }
        try pair.connection.sendDatagram(Array("typing".utf8))
        try pair.connection.sendDatagram([UInt8](repeating: 9, count: limit))
        var echoed: [[UInt8]] = []
        #expect(pair.run(for: .seconds(5), until: { echoed.count == 2 }, client: { _, event in
            if case .datagram(let bytes) = event { echoed.append(bytes) }
        }))
        #expect(echoed.contains(Array("typing".utf8)))
        #expect(echoed.contains([UInt8](repeating: 9, count: limit)))
    }

    /// A peer that advertises no DATAGRAM support gets none: sending is an error, not a crash.
    @Test func datagramsRefusedWhenPeerAdvertisesZero() throws {
        var server = EngineFixtures.serverConfiguration()
        server.connection.maxDatagramFrameSize = 0
        let pair = try EnginePair(serverConfiguration: server)
        #expect(pair.handshake())
        #expect(pair.connection.maxDatagramPayloadSize == nil)
        #expect(throws: QuicError.datagramsUnsupported) { try pair.connection.sendDatagram([1]) }
    }

    /// With no traffic both sides close by idle timeout after the 30 s the configuration sets.
    @Test func idleTimeoutClosesBothSides() throws {
        let pair = try EnginePair()
        #expect(pair.handshake())
        let start = pair.network.now
        #expect(pair.run(for: .seconds(120), until: { pair.clientCloseReason != nil && pair.serverCloseReason != nil }))
        #expect(pair.clientCloseReason?.kind == .idleTimeout)
        #expect(pair.serverCloseReason?.kind == .idleTimeout)
        let elapsed = pair.network.now - start
        #expect(elapsed >= .seconds(29) && elapsed <= .seconds(32))
    }

    /// Bytes the application writes after an idle gap are stamped with the time they are sent,
    /// so the RTT their ACK gives is the link's, not the gap's (issue 11 item 8).
    @Test func rttAfterIdleGapIsTheLinksRoundTrip() throws {
        let pair = try EnginePair(impairment: .init(delay: .milliseconds(10)))
        #expect(pair.handshake())
        pair.run(for: .seconds(3))
        let stream = try pair.connection.openStream()
        try pair.connection.write(Array("after a pause".utf8), to: stream)
        var echoed = false
        #expect(pair.run(for: .seconds(5), until: { echoed }, client: { _, event in
            if case .streamData(stream, _, _) = event { echoed = true }
        }))
        let statistics = pair.connection.statistics
        #expect(statistics.latestRTT < .milliseconds(100), "latest RTT \(statistics.latestRTT) after a 3 s gap on a 20 ms link")
        #expect(statistics.smoothedRTT < .milliseconds(100), "smoothed RTT \(statistics.smoothedRTT)")
    }

    /// A client keeps the session ticket the server sends after the handshake; a second
    /// connection offering it resumes (no certificate, no signature), and the server counts one
    /// full and one resumed handshake. The echo works on the resumed connection.
    @Test func sessionTicketResumesTheNextHandshake() throws {
        let pair = try EnginePair()
        #expect(pair.handshake())
        #expect(pair.run(for: .seconds(2), until: { pair.connection.sessionTicket != nil }))
        let ticket = try #require(pair.connection.sessionTicket)
        #expect(!pair.connection.resumedSession)
        var configuration = EngineFixtures.clientConfiguration()
        configuration.tls.resumptionTicket = ticket
        let second = SocketAddress(host: "127.0.0.3", port: 40000)!
        pair.network.attach(pair.client, at: second)
        let resumed = try pair.client.connect(to: EngineFixtures.serverAddress, from: second, configuration: configuration, now: pair.network.now)
        // The server completes one flight after the client.
        #expect(pair.run(for: .seconds(5), until: { resumed.isEstablished && pair.server.statistics.handshakesResumed == 1 }))
        #expect(resumed.resumedSession)
        #expect(pair.serverConnections.count == 2 && pair.serverConnections[1].resumedSession)
        #expect(pair.server.statistics.handshakesFull == 1 && pair.server.statistics.handshakesResumed == 1)
        let stream = try resumed.openStream()
        try resumed.write(Array("resumed".utf8), to: stream)
        var echoed: [UInt8] = []
        #expect(pair.run(for: .seconds(5), until: { echoed.count == 7 }, client: { connection, event in
            if connection === resumed, case .streamData(stream, let bytes, _) = event { echoed += bytes }
        }))
    }

    /// With mutual TLS, a resumed handshake still tells the server who the client is: the
    /// certificate the client presented in the full handshake.
    @Test func resumedSessionKeepsTheClientCertificate() throws {
        var client = EngineFixtures.clientConfiguration()
        client.tls.certificateChainPath = TestCertificates.clientCertificate
        client.tls.privateKeyPath = TestCertificates.clientKey
        let pair = try EnginePair(serverConfiguration: EngineFixtures.serverConfiguration(requireClientCertificates: true), clientConfiguration: client)
        #expect(pair.handshake())
        #expect(pair.run(for: .seconds(2), until: { pair.connection.sessionTicket != nil }))
        client.tls.resumptionTicket = pair.connection.sessionTicket
        let second = SocketAddress(host: "127.0.0.3", port: 40000)!
        pair.network.attach(pair.client, at: second)
        let resumed = try pair.client.connect(to: EngineFixtures.serverAddress, from: second, configuration: client, now: pair.network.now)
        #expect(pair.run(for: .seconds(5), until: { resumed.isEstablished && pair.server.statistics.handshakesResumed == 1 }))
        #expect(pair.serverConnections.count == 2)
        #expect(pair.serverConnections.last?.peerCertificateSubject?.contains("CN=alice") == true,
                "\(String(describing: pair.serverConnections.last?.peerCertificateSubject))")
    }

    /// A ticket from another server (another key) or garbage is no error: the handshake is a full one.
    @Test(arguments: [true, false])
    func unusableTicketFallsBackToFullHandshake(garbage: Bool) throws {
        let first = try EnginePair()
        #expect(first.handshake())
        #expect(first.run(for: .seconds(2), until: { first.connection.sessionTicket != nil }))
        let ticket = garbage ? [UInt8](repeating: 7, count: 200) : try #require(first.connection.sessionTicket)
        var client = EngineFixtures.clientConfiguration()
        client.tls.resumptionTicket = ticket
        // The other pair's server has another key, so it cannot decrypt the first server's ticket.
        let other = try EnginePair(serverConfiguration: EngineFixtures.serverConfiguration(keyVariant: 1), clientConfiguration: client)
        #expect(other.handshake())
        #expect(!other.connection.resumedSession)
        #expect(other.server.statistics.handshakesFull == 1)
    }

    /// Keep-alive PINGs hold an idle connection open past the idle timeout.
    @Test func keepAliveHoldsIdleConnection() throws {
        var client = EngineFixtures.clientConfiguration()
        client.keepAliveInterval = .seconds(10)
        let pair = try EnginePair(clientConfiguration: client)
        #expect(pair.handshake())
        pair.run(for: .seconds(100))
        #expect(pair.clientCloseReason == nil)
        #expect(pair.serverCloseReason == nil)
        #expect(pair.connection.isEstablished)
    }

    /// `silenceTimeout` (issue 26, item 4): a client whose server goes silent (every packet lost
    /// from then on) gives up 5 s after its first unanswered packet: at once after data it wrote,
    /// and 5 s after its keep-alive PING when idle; a healthy idle connection stays open.
    @Test func silentPeerIsGivenUpWithinTheSilenceTimeout() throws {
        var configuration = EngineFixtures.clientConfiguration()
        configuration.keepAliveInterval = .seconds(10)
        configuration.silenceTimeout = .seconds(5)
        let healthy = try EnginePair(clientConfiguration: configuration)
        #expect(healthy.handshake())
        healthy.run(for: .seconds(60))
        #expect(healthy.clientCloseReason == nil && healthy.connection.isEstablished, "\(String(describing: healthy.clientCloseReason)) \(healthy.network.now)")

        let idle = try EnginePair(clientConfiguration: configuration)
        #expect(idle.handshake())
        idle.run(for: .seconds(1))
        idle.network.impairment = .init(loss: 1.0)
        let silentSince = idle.network.now
        #expect(idle.run(for: .seconds(60), until: { idle.clientCloseReason != nil }))
        #expect(idle.clientCloseReason?.kind == .dropped, "\(String(describing: idle.clientCloseReason))")
        let idleTook = idle.network.now - silentSince
        #expect(idleTook >= .seconds(13) && idleTook <= .seconds(16), "\(idleTook) \(String(describing: idle.clientCloseReason))")

        let active = try EnginePair(clientConfiguration: configuration)
        #expect(active.handshake())
        active.network.impairment = .init(loss: 1.0)
        let wroteAt = active.network.now
        let stream = try active.connection.openStream()
        try active.connection.write(Array("anyone there?".utf8), to: stream)
        #expect(active.run(for: .seconds(60), until: { active.clientCloseReason != nil }))
        #expect(active.clientCloseReason?.kind == .dropped)
        let activeTook = active.network.now - wroteAt
        #expect(activeTook >= .seconds(4) && activeTook <= .seconds(6), "\(activeTook)")
    }

    /// A client whose server never answers gives up with a handshake timeout.
    @Test func handshakeTimeout() throws {
        var client = EngineFixtures.clientConfiguration()
        client.handshakeTimeout = .seconds(3)
        let pair = try EnginePair(impairment: .init(loss: 1.0), clientConfiguration: client)
        #expect(pair.run(for: .seconds(20), until: { pair.clientCloseReason != nil }))
        #expect(pair.clientCloseReason?.kind == .handshakeTimeout)
    }

    /// An application close carries its code and reason to the peer; both sides then forget it.
    @Test func applicationCloseCodeReachesPeer() throws {
        let pair = try EnginePair()
        #expect(pair.handshake())
        let serverSide = try #require(pair.serverConnections.first)
        serverSide.close(applicationCode: 0x4, reason: "server shutting down")
        #expect(pair.run(for: .seconds(5), until: { pair.clientCloseReason != nil }))
        #expect(pair.clientCloseReason == QuicCloseReason(kind: .application(code: 0x4), reason: "server shutting down", byPeer: true))
        #expect(serverSide.closeReason?.byPeer == false)
        pair.run(for: .seconds(5))
        #expect(pair.server.connectionCount == 0)
        #expect(pair.client.connectionCount == 0)
    }

    /// RESET_STREAM carries its code to the peer; STOP_SENDING makes the peer reset with the same
    /// code and refuse further writes on that stream.
    @Test func streamResetAndStopSendingCodes() throws {
        let pair = try EnginePair()
        pair.echo = false
        #expect(pair.handshake())
        let first = try pair.connection.openStream()
        try pair.connection.write([1, 2, 3], to: first)
        let second = try pair.connection.openStream()
        try pair.connection.write([4], to: second)
        var serverSide: QuicConnection?
        pair.run(for: .seconds(2), until: { pair.serverEvents.filter { if case .streamOpened = $0 { true } else { false } }.count == 2 },
                 server: { connection, _ in serverSide = connection })
        pair.connection.resetStream(first, errorCode: 0x11)
        serverSide?.stopSending(second, errorCode: 0x1)
        #expect(pair.run(for: .seconds(2), until: {
            pair.serverEvents.contains { if case .streamReset(first, 0x11) = $0 { true } else { false } }
                && pair.serverEvents.contains { if case .streamReset(second, 0x1) = $0 { true } else { false } }
        }))
        // The first write after STOP_SENDING is queued; sending it finds the stream reset.
        _ = try? pair.connection.write([5], to: second)
        pair.run(for: .seconds(1))
        #expect(throws: QuicError.streamNotWritable(second)) { try pair.connection.write([6], to: second) }
    }
}

@Suite("Engine in memory: early close")
struct InMemoryEarlyCloseTests {
    /// A client that closes the moment its handshake completes still reaches the server: the
    /// server reports the close instead of waiting for a timeout.
    @Test func closeRightAfterHandshakeReachesServer() throws {
        let pair = try EnginePair()
        var closedAt: MonotonicTime?
        pair.run(for: .seconds(5), until: { pair.serverCloseReason != nil }, client: { connection, event in
            if case .handshakeCompleted = event {
                connection.close(applicationCode: 0, reason: "bye")
                closedAt = pair.network.now
            }
        })
        let reason = try #require(pair.serverCloseReason)
        #expect(reason.byPeer)
        #expect(pair.network.now - (closedAt ?? pair.network.now) < .seconds(1))
    }
}

@Suite("Engine in memory: server endpoint")
struct InMemoryServerEndpointTests {
    /// A long-header datagram of an unknown version gets a Version Negotiation listing QUIC v1;
    /// a small one gets nothing (no amplification).
    @Test func versionNegotiation() throws {
        let server = try QuicEndpoint(server: EngineFixtures.serverConfiguration(), now: MonotonicTime(nanoseconds: 1))
        var probe: [UInt8] = [0xc0, 0x1a, 0x2a, 0x3a, 0x4a, 8] + [UInt8](repeating: 7, count: 8) + [8] + [UInt8](repeating: 9, count: 8)
        probe += [UInt8](repeating: 0, count: 1200 - probe.count)
        server.receive(Array(probe.prefix(100)), from: EngineFixtures.clientAddress, to: EngineFixtures.serverAddress, now: MonotonicTime(nanoseconds: 2))
        #expect(server.pollTransmit(now: MonotonicTime(nanoseconds: 2)) == nil)
        server.receive(probe, from: EngineFixtures.clientAddress, to: EngineFixtures.serverAddress, now: MonotonicTime(nanoseconds: 3))
        let reply = try #require(server.pollTransmit(now: MonotonicTime(nanoseconds: 3)))
        #expect(reply.bytes[0] & 0x80 != 0)
        #expect(Array(reply.bytes[1...4]) == [0, 0, 0, 0])
        #expect(reply.bytes.count < probe.count)
        #expect(server.statistics.versionNegotiationsSent == 1)
        // The supported versions follow the two connection IDs; QUIC v1 is among them.
        let versions = reply.bytes.suffix(from: 6 + 8 + 1 + 8)
        #expect(stride(from: versions.startIndex, to: versions.endIndex, by: 4).contains { Array(reply.bytes[$0..<$0 + 4]) == [0, 0, 0, 1] })
    }

    /// A server restarted with the same key answers an old connection with a stateless reset,
    /// and the client closes at once with `statelessReset` instead of waiting for its idle timeout.
    @Test func restartedServerSendsStatelessReset() throws {
        let pair = try EnginePair()
        #expect(pair.handshake())
        let reborn = try QuicEndpoint(server: EngineFixtures.serverConfiguration(), now: pair.network.now)
        pair.network.attach(reborn, at: EngineFixtures.serverAddress)
        let stream = try pair.connection.openStream()
        try pair.connection.write(Array(repeating: 1, count: 100), to: stream)
        let start = pair.network.now
        #expect(pair.run(for: .seconds(10), until: { pair.clientCloseReason != nil }))
        #expect(pair.clientCloseReason?.kind == .statelessReset)
        #expect(pair.network.now - start < .seconds(1))
        #expect(reborn.statistics.statelessResetsSent >= 1)
    }

    /// Beyond the connection limit a new client is refused with CONNECTION_REFUSED; the
    /// established ones are untouched.
    @Test func connectionLimitRefusesNewClients() throws {
        var configuration = EngineFixtures.serverConfiguration()
        configuration.maxConnections = 1
        let pair = try EnginePair(serverConfiguration: configuration)
        #expect(pair.handshake())
        let second = SocketAddress(host: "127.0.0.9", port: 40000)!
        pair.network.attach(pair.client, at: second)
        let refused = try pair.client.connect(to: EngineFixtures.serverAddress, from: second,
                                              configuration: EngineFixtures.clientConfiguration(), now: pair.network.now)
        #expect(pair.run(for: .seconds(5), until: { refused.closeReason != nil }))
        #expect(refused.closeReason?.kind == .transport(code: 0x2))
        #expect(pair.server.statistics.connectionsRefused == 1)
        #expect(pair.connection.isEstablished)
    }
}

@Suite("Engine in memory: limits of a server endpoint")
struct InMemoryEndpointLimitTests {
    private static func connect(_ pair: EnginePair, from host: String, port: UInt16) throws -> QuicConnection {
        let local = SocketAddress(host: host, port: port)!
        pair.network.attach(pair.client, at: local)
        return try pair.client.connect(to: EngineFixtures.serverAddress, from: local,
                                       configuration: EngineFixtures.clientConfiguration(), now: pair.network.now)
    }

    /// With at most 2 connections per address, a third from the same IPv4 address is refused
    /// with CONNECTION_REFUSED (another port does not help), another address is served, an
    /// exempt address is not counted, and a closed connection frees its slot.
    @Test func connectionsPerAddressAreLimited() throws {
        var configuration = EngineFixtures.serverConfiguration()
        configuration.maxConnectionsPerAddress = 2
        configuration.addressLimitExemptions = [AddressRange("10.9.0.0/16")!]
        let pair = try EnginePair(serverConfiguration: configuration)
        #expect(pair.handshake())
        let second = try Self.connect(pair, from: EngineFixtures.clientAddress.host, port: 40001)
        let third = try Self.connect(pair, from: EngineFixtures.clientAddress.host, port: 40002)
        let elsewhere = try Self.connect(pair, from: "127.0.0.77", port: 40003)
        let exempt = try (0..<4).map { try Self.connect(pair, from: "10.9.1.1", port: 41000 + UInt16($0)) }
        #expect(pair.run(for: .seconds(5), until: {
            third.closeReason != nil && second.isEstablished && elsewhere.isEstablished && exempt.allSatisfy(\.isEstablished)
        }))
        #expect(third.closeReason?.kind == .transport(code: 0x2))
        #expect(pair.server.statistics.connectionsRefusedPerAddress == 1)
        second.close(applicationCode: 0)
        #expect(pair.run(for: .seconds(5), until: { pair.server.connectionCount == 6 }))
        let again = try Self.connect(pair, from: EngineFixtures.clientAddress.host, port: 40004)
        #expect(pair.run(for: .seconds(5), until: { again.isEstablished }))
    }

    /// IPv6 clients are counted per /64: two addresses of one /64 share its quota.
    @Test func ipv6AddressesCountPerSlash64() throws {
        var configuration = EngineFixtures.serverConfiguration()
        configuration.maxConnectionsPerAddress = 1
        let server = SocketAddress(host: "fd00::1", port: 4433)!
        let network = SimulatedNetwork()
        let endpoint = try QuicEndpoint(server: configuration, now: network.now)
        let client = try QuicEndpoint(now: network.now)
        network.attach(endpoint, at: server)
        func connect(_ host: String) throws -> QuicConnection {
            let local = SocketAddress(host: host, port: 5000)!
            network.attach(client, at: local)
            return try client.connect(to: server, from: local, configuration: EngineFixtures.clientConfiguration(), now: network.now)
        }
        let first = try connect("fd00:0:0:1::a")
        let sameSite = try connect("fd00:0:0:1::b")
        let otherSite = try connect("fd00:0:0:2::a")
        #expect(network.run(for: .seconds(5), until: { first.isEstablished && otherSite.isEstablished && sameSite.closeReason != nil }))
        #expect(sameSite.closeReason?.kind == .transport(code: 0x2))
    }

    /// CIDR blocks parse, match their addresses (IPv4-mapped IPv6 as IPv4) and nothing else; junk is refused.
    @Test func addressRangesMatchTheirBlock() throws {
        let loopback = try #require(AddressRange("127.0.0.0/8"))
        #expect(loopback.contains(SocketAddress(host: "127.1.2.3", port: 9)!))
        #expect(loopback.contains(SocketAddress(host: "::ffff:127.0.0.1", port: 9)!))
        #expect(!loopback.contains(SocketAddress(host: "128.0.0.1", port: 9)!))
        #expect(!loopback.contains(SocketAddress(host: "::1", port: 9)!))
        let site = try #require(AddressRange("2001:db8:1::/48"))
        #expect(site.contains(SocketAddress(host: "2001:db8:1:ffff::1", port: 9)!))
        #expect(!site.contains(SocketAddress(host: "2001:db8:2::1", port: 9)!))
        #expect(AddressRange("10.1.2.3")?.contains(SocketAddress(host: "10.1.2.3", port: 1)!) == true)
        #expect(AddressRange("10.1.2.3")?.contains(SocketAddress(host: "10.1.2.4", port: 1)!) == false)
        #expect(AddressRange("0.0.0.0/0")?.contains(SocketAddress(host: "8.8.8.8", port: 1)!) == true)
        #expect(AddressRange("10.1.2.3/8")?.description == "10.0.0.0/8")
        #expect(AddressRange("::1/128")?.description == "::1/128")
        for junk in ["", "10.0.0.0/33", "::/129", "10.0.0/8", "host/8", "10.0.0.0/", "10.0.0.0/8/8", "10.0.0.0/-1"] {
            #expect(AddressRange(junk) == nil, "\(junk)")
        }
    }

    /// At most `statelessResetsPerSecond` stateless resets leave in one second, however many
    /// packets for unknown connections arrive; the budget is new the next second.
    @Test func statelessResetsAreBudgetedPerSecond() throws {
        var configuration = EngineFixtures.serverConfiguration()
        configuration.statelessResetsPerSecond = 100
        let start = MonotonicTime(nanoseconds: 5_000_000_000)
        let server = try QuicEndpoint(server: configuration, now: start)
        var random = SplitMix64(seed: 9)
        func unknownShortHeader() -> [UInt8] { [0x40] + (0..<60).map { _ in UInt8(truncatingIfNeeded: random.next()) } }
        for index in 0..<300 {
            server.receive(unknownShortHeader(), from: EngineFixtures.clientAddress, to: EngineFixtures.serverAddress,
                           now: start + .microseconds(UInt64(index)))
        }
        #expect(server.statistics.statelessResetsSent == 100)
        server.receive(unknownShortHeader(), from: EngineFixtures.clientAddress, to: EngineFixtures.serverAddress, now: start + .seconds(1))
        #expect(server.statistics.statelessResetsSent == 101)
    }

    /// A Retry token is valid for `retryTokenLifetime` only: on a link whose round trip is longer,
    /// the token the client echoes has expired, and the server refuses it with INVALID_TOKEN; on
    /// a quick link the same server accepts the client.
    @Test(arguments: [(delay: 5, refused: false), (delay: 300, refused: true)] as [(delay: UInt64, refused: Bool)])
    func retryTokensExpire(_ link: (delay: UInt64, refused: Bool)) throws {
        var configuration = EngineFixtures.serverConfiguration()
        configuration.requireRetry = true
        configuration.retryTokenLifetime = .milliseconds(200)
        let pair = try EnginePair(impairment: .init(delay: .milliseconds(link.delay)), serverConfiguration: configuration)
        #expect(pair.run(for: .seconds(10), until: { pair.connection.isEstablished || pair.clientCloseReason != nil }))
        #expect(pair.server.statistics.retriesSent >= 1)
        if link.refused {
            #expect(pair.clientCloseReason?.kind == .transport(code: 0xb), "\(String(describing: pair.clientCloseReason))")
            #expect(pair.server.statistics.invalidTokens >= 1)
        } else {
            #expect(pair.connection.isEstablished)
        }
    }

    /// Datagrams waiting to be sent are bounded: beyond `maxQueuedDatagrams` one is refused
    /// with `datagramQueueFull`, and the queue takes more once it has drained.
    @Test func datagramQueueIsBounded() throws {
        var client = EngineFixtures.clientConfiguration()
        client.maxQueuedDatagrams = 8
        let pair = try EnginePair(clientConfiguration: client)
        #expect(pair.handshake())
        for _ in 0..<8 { try pair.connection.sendDatagram([1]) }
        #expect(throws: QuicError.datagramQueueFull) { try pair.connection.sendDatagram([1]) }
        pair.run(for: .milliseconds(100))
        try pair.connection.sendDatagram([2])
    }
}
