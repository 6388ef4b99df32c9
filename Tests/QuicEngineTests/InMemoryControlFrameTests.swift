import TestSupport
import QuicSimulation
import Testing

@testable import QuicEngine

/// Every control frame ngtcp2 wants to send leaves in the round that made it due, although no
/// data of ours is queued and the sender's timers are held (issue 23 item 19): the endpoint skips
/// the write after a read that leaves nothing to send (an ACK of what we sent), and must know
/// when a read did leave something. Each test holds the sender's timers, so a frame that waited
/// for an ACK-delay or loss timer, or for data, would never arrive.
///
/// Each test runs twice: as it is, and with the sender's coalescing window on (issue 25) and a
/// ``HoldingWriter`` keeping stream data of the sender's held for that window whenever it can.
/// The window (100 ms) is twenty one-way delays long and the timer that would end it is held:
/// a frame that waited for held data, or was held with it, would arrive late or never. In those
/// runs the client also holds its ACKs (``QuicConfiguration/acknowledgementHold``).
@Suite("Engine in memory: control frames leave without waiting for data or a timer")
struct InMemoryControlFrameTests {
    /// The link's one-way delay (``SimulatedNetwork/Impairment``'s default) and what a round of
    /// the simulation adds to it.
    private static let oneWay = TimeSpan.milliseconds(5)
    private static let slack = TimeSpan.microseconds(50)
    /// The coalescing window of the runs with `holding`.
    private static let window = TimeSpan.milliseconds(100)

    /// Handshake, then quiet: spare connection IDs, the session ticket and their ACKs are through.
    /// With `holding`, both sides coalesce (a side's writer holds data only where a test adds one).
    private static func settledPair(server: QuicServerConfiguration = EngineFixtures.serverConfiguration(),
                                    holding: Bool) throws -> EnginePair {
        var server = server
        var client = EngineFixtures.clientConfiguration()
        if holding {
            server.connection.coalescingWindow = window
            client.coalescingWindow = window
            // And the client holds its ACKs as chat-client and chat-bot do (issue 25): a frame it
            // owes must not wait with them.
            client.acknowledgementHold = .milliseconds(10)
        }
        let pair = try EnginePair(serverConfiguration: server, clientConfiguration: client)
        #expect(pair.handshake())
        pair.run(for: .milliseconds(300))
        return pair
    }

    /// With `holding`, keeps data of `side` held for the coalescing window whenever the
    /// connection could start a hold, from now on; nil without.
    @discardableResult
    /// `side` is given the pair rather than capturing it: the pair keeps the writer (its
    /// `eachStep`), and a writer that kept the pair would never let either go.
    private static func keepHolding(_ pair: EnginePair, holding: Bool, side: @escaping (EnginePair) -> QuicConnection?) -> HoldingWriter? {
        guard holding else { return nil }
        let writer = HoldingWriter { [weak pair] in pair.flatMap(side) }
        pair.eachStep = { writer.step() }
        return writer
    }

    /// The writer did hold data while the test ran (the runs with `holding` test something).
    private static func expectHeld(_ writer: HoldingWriter?) {
        if let writer { #expect(writer.holds > 0, "the sender never held data: the test did not test coalescing") }
    }

    /// MAX_STREAMS: a client with all its streams open (4, four uploads) opens a fifth the moment
    /// the server's MAX_STREAMS can reach it after the first closes. What closes a server stream
    /// is the client's ACK of the echo's last byte: a read with nothing else in it.
    @Test(arguments: [false, true])
    func maxStreamsLeavesWhenAnACKClosesAStream(holding: Bool) throws {
        var server = EngineFixtures.serverConfiguration()
        server.connection.maxBidirectionalStreams = 4
        let pair = try Self.settledPair(server: server, holding: holding)
        pair.network.holdTimers(of: pair.server)
        let writer = Self.keepHolding(pair, holding: holding) { $0.serverConnections.first }
        let streams = try (0..<4).map { _ in try pair.connection.openStream() }
        #expect(throws: QuicError.streamLimitReached) { try pair.connection.openStream() }
        for stream in streams { try pair.connection.write(Array("upload".utf8), to: stream, fin: true) }
        var firstClosed: MonotonicTime?
        var fifth: QuicStreamID?
        let opened = pair.run(for: .seconds(10), until: {
            if fifth == nil, firstClosed != nil { fifth = try? pair.connection.openStream() }
            return fifth != nil
        }, server: { _, event in
            if case .streamClosed = event, firstClosed == nil { firstClosed = pair.network.now }
        })
        #expect(opened, "no MAX_STREAMS reached the client: it waited for data or a server timer")
        let closed = try #require(firstClosed)
        #expect(pair.network.now - closed <= Self.oneWay + Self.slack, "MAX_STREAMS left \(pair.network.now - closed) after the close")
        Self.expectHeld(writer)
    }

    /// MAX_DATA: the server's application takes the bytes of a client that has used the
    /// connection's credit; the raise leaves in the round where more than half the window was
    /// taken, and the whole upload gets through with the server's timers held.
    @Test(arguments: [false, true])
    func maxDataLeavesInTheRoundTheApplicationTakesTheBytes(holding: Bool) throws {
        var server = EngineFixtures.serverConfiguration()
        server.connection.initialMaxData = 16 << 10
        let pair = try Self.settledPair(server: server, holding: holding)
        try Self.expectCreditRaisedInTheSameRound(pair, window: 16 << 10, holding: holding) { connection, stream in
            connection.connectionSendCredit + connection.sentOffset(stream)
        }
    }

    /// MAX_STREAM_DATA: the same with the stream's credit the limit.
    @Test(arguments: [false, true])
    func maxStreamDataLeavesInTheRoundTheApplicationTakesTheBytes(holding: Bool) throws {
        var server = EngineFixtures.serverConfiguration()
        server.connection.initialMaxStreamData = 16 << 10
        let pair = try Self.settledPair(server: server, holding: holding)
        try Self.expectCreditRaisedInTheSameRound(pair, window: 16 << 10, holding: holding) { connection, stream in
            connection.streamSendCredit(stream) + connection.sentOffset(stream)
        }
    }

    private static func expectCreditRaisedInTheSameRound(_ pair: EnginePair, window: Int, holding: Bool,
                                                         limit: @escaping (QuicConnection, QuicStreamID) -> UInt64) throws {
        pair.echo = false
        pair.network.holdTimers(of: pair.server)
        let writer = keepHolding(pair, holding: holding) { $0.serverConnections.first }
        let stream = try pair.connection.openStream()
        let initialLimit = limit(pair.connection, stream)
        #expect(initialLimit == UInt64(window))
        let upload = 3 * window
        try pair.connection.write(EngineFixtures.payload(count: upload), to: stream, fin: true)
        var taken = 0
        var finished = false
        var halfTakenAt: MonotonicTime?
        var raisedAt: MonotonicTime?
        let done = pair.run(for: .seconds(10), until: {
            if raisedAt == nil, limit(pair.connection, stream) > initialLimit { raisedAt = pair.network.now }
            return finished
        }, server: { _, event in
            guard case .streamData(stream, let bytes, let fin) = event else { return }
            taken += bytes.count
            finished = fin
            if halfTakenAt == nil, taken > window / 2 { halfTakenAt = pair.network.now }
        })
        #expect(done && taken == upload, "\(taken) of \(upload) bytes arrived: the credit waited for data or a server timer")
        let half = try #require(halfTakenAt)
        let raised = try #require(raisedAt)
        #expect(raised - half <= oneWay + slack, "the credit was raised \(raised - half) after half the window was taken")
        expectHeld(writer)
    }

    /// MAX_STREAM_DATA of a bulk stream: credit the application releases later (a file's bytes
    /// are on disk) leaves at once, with no read and no timer to carry it.
    @Test(arguments: [false, true])
    func bulkStreamCreditLeavesWhenTheApplicationReleasesIt(holding: Bool) throws {
        var server = EngineFixtures.serverConfiguration()
        server.connection.initialMaxStreamData = 16 << 10
        let pair = try Self.settledPair(server: server, holding: holding)
        pair.echo = false
        pair.network.holdTimers(of: pair.server)
        let writer = Self.keepHolding(pair, holding: holding) { $0.serverConnections.first }
        let stream = try pair.connection.openStream()
        try pair.connection.write(EngineFixtures.payload(count: 32 << 10), to: stream, fin: true)
        var serverSide: QuicConnection?
        var taken = 0
        #expect(pair.run(for: .seconds(5), until: { taken == 16 << 10 }, server: { connection, event in
            if case .streamOpened(stream) = event { connection.markBulk(stream) }
            if case .streamData(stream, let bytes, _) = event { taken += bytes.count }
            serverSide = connection
        }))
        pair.run(for: .milliseconds(200))
        #expect(taken == 16 << 10, "a bulk stream's credit came back before the application released it")
        let start = pair.network.now
        try #require(serverSide).releaseReceiveCredit(stream, count: 16 << 10)
        #expect(pair.run(for: .seconds(5), until: { pair.connection.streamSendCredit(stream) + pair.connection.sentOffset(stream) > 16 << 10 }),
                "the released credit never reached the client")
        #expect(pair.network.now - start <= Self.oneWay + Self.slack)
        Self.expectHeld(writer)
    }

    /// A link slow enough that ngtcp2's pacing of the server's first flight (computed with the
    /// initial RTT of 333 ms, before any sample) has let go by the time the client's Finished
    /// arrives: pacing is a timer that rightly holds any packet, control frames included.
    private static let handshakeLink = SimulatedNetwork.Impairment(delay: .milliseconds(50))

    /// HANDSHAKE_DONE: the server sends it in the round its handshake completes (reading the
    /// client's Finished), not with its next data or ACK timer; the client is confirmed one
    /// one-way delay later. With `holding` the server's application writes as soon as its side
    /// is established: a hold cannot begin before the packet that carries HANDSHAKE_DONE (the
    /// window counts from the last packet sent after the handshake), which this checks.
    @Test(arguments: [false, true])
    func handshakeDoneLeavesInTheRoundTheHandshakeCompletes(holding: Bool) throws {
        let pair = try EnginePair(impairment: Self.handshakeLink, serverConfiguration: Self.coalescing(holding))
        pair.network.holdTimers(of: pair.server)
        Self.keepHolding(pair, holding: holding) { $0.serverConnections.first }
        var completedAt: MonotonicTime?
        let confirmed = pair.run(for: .seconds(5), until: { pair.connection.isHandshakeConfirmed }, server: { _, event in
            if case .handshakeCompleted = event { completedAt = pair.network.now }
        })
        #expect(confirmed, "no HANDSHAKE_DONE: it waited for data or a server timer")
        let completed = try #require(completedAt)
        #expect(pair.network.now - completed <= Self.handshakeLink.delay + Self.slack)
    }

    /// NEW_CONNECTION_ID at the handshake: the server's spare connection IDs go with
    /// HANDSHAKE_DONE, so a client can migrate the moment it is confirmed.
    @Test(arguments: [false, true])
    func newConnectionIDsLeaveWithTheHandshake(holding: Bool) throws {
        let pair = try EnginePair(impairment: Self.handshakeLink, serverConfiguration: Self.coalescing(holding))
        Self.keepHolding(pair, holding: holding) { $0.serverConnections.first }
        let elsewhere = SocketAddress(host: "127.0.0.3", port: 50002)!
        pair.network.attach(pair.client, at: elsewhere)
        pair.network.holdTimers(of: pair.server)
        #expect(pair.run(for: .seconds(5), until: { pair.connection.isHandshakeConfirmed }))
        // Migrating takes an unused connection ID of the server's.
        try pair.client.migrate(pair.connection, to: elsewhere, now: pair.network.now)
    }

    /// NEW_CONNECTION_ID after RETIRE_CONNECTION_ID: each migration spends one of the 3 spare
    /// IDs the client accepts beyond its current one and retires the old one; the server
    /// replaces every retired ID in the round the retirement arrives (on the client's new path),
    /// so 6 migrations in a row all find a spare with the server's timers held.
    @Test(arguments: [false, true])
    func newConnectionIDReplacesEachRetiredOne(holding: Bool) throws {
        let pair = try Self.settledPair(holding: holding)
        pair.echo = false
        pair.network.holdTimers(of: pair.server)
        let writer = Self.keepHolding(pair, holding: holding) { $0.serverConnections.first }
        for step in 1...6 {
            let next = SocketAddress(host: "127.0.0.\(10 + step)", port: 50000 + UInt16(step))!
            pair.network.attach(pair.client, at: next)
            try pair.client.migrate(pair.connection, to: next, now: pair.network.now)
            #expect(pair.run(for: .seconds(2), until: { pair.connection.localAddress == next }), "migration \(step) did not complete")
            // The old ID is retired once the new path is validated; its replacement follows.
            pair.run(for: .milliseconds(50))
        }
        Self.expectHeld(writer)
    }

    /// PATH_RESPONSE: after a NAT rebinding the server checks the client's new address with a
    /// PATH_CHALLENGE. The client sees it on its own path, with nothing queued, and must answer in
    /// the same round: with the client's timers held the server still validates the new path.
    @Test(arguments: [false, true])
    func pathResponseLeavesInTheRoundTheChallengeArrives(holding: Bool) throws {
        let pair = try Self.settledPair(holding: holding)
        pair.echo = false
        pair.network.holdTimers(of: pair.client)
        let writer = Self.keepHolding(pair, holding: holding) { $0.connection }
        let rebound = EngineFixtures.clientAddress.withPort(50001)
        pair.network.rebinding[EngineFixtures.clientAddress] = rebound
        let start = pair.network.now
        try pair.connection.sendDatagram(Array("typing".utf8))
        var followed = false
        #expect(pair.run(for: .seconds(5), until: { followed }, server: { _, event in
            if case .pathChanged(_, rebound) = event { followed = true }
        }), "the server never validated the new path: the PATH_RESPONSE waited for data or a client timer")
        // Datagram, PATH_CHALLENGE, PATH_RESPONSE: three one-way trips.
        #expect(pair.network.now - start <= Self.oneWay * 3 + Self.slack)
        Self.expectHeld(writer)
    }

    /// Retransmission: an ACK that declares a packet lost (three later ones arrived) leaves the
    /// lost data to send again, with nothing new queued; it leaves in that round, not at a timer.
    /// With `holding`, the payload leaves at once (the server was quiet for longer than a window)
    /// and data the server writes after it is held.
    @Test(arguments: [false, true])
    func lostDataLeavesInTheRoundAnACKDeclaresTheLoss(holding: Bool) throws {
        let pair = try Self.settledPair(holding: holding)
        pair.echo = false
        pair.network.holdTimers(of: pair.server)
        let serverSide = try #require(pair.serverConnections.first)
        let stream = try serverSide.openStream()
        let payload = EngineFixtures.payload(count: 6 * 1300)
        pair.network.drop(next: 1, from: EngineFixtures.serverAddress)
        let start = pair.network.now
        try serverSide.write(payload, to: stream, fin: true)
        #expect(!serverSide.isHolding, "a write after a quiet window was held")
        let writer = Self.keepHolding(pair, holding: holding) { _ in serverSide }
        var sink = StreamSink()
        #expect(pair.run(for: .seconds(5), until: { sink.finished }, client: { _, event in sink.take(event, stream: stream) }),
                "the lost packet was never sent again: it waited for a server timer")
        #expect(sink.checksum.count == payload.count)
        // Data, the client's ACK, the retransmission: three one-way trips.
        #expect(pair.network.now - start <= Self.oneWay * 3 + Self.slack)
        Self.expectHeld(writer)
    }

    private static func coalescing(_ holding: Bool) -> QuicServerConfiguration {
        var server = EngineFixtures.serverConfiguration()
        if holding { server.connection.coalescingWindow = window }
        return server
    }
}

/// Writes a few bytes on a stream of its own whenever the connection could start a hold (nothing
/// queued, no hold under way), and counts the writes the coalescing window held.
final class HoldingWriter {
    private let side: () -> QuicConnection?
    private var stream: QuicStreamID?
    private(set) var holds = 0

    init(_ side: @escaping () -> QuicConnection?) { self.side = side }

    func step() {
        guard let connection = side(), connection.isEstablished, connection.isUsable,
              !connection.isHolding, connection.hasNoQueuedData else { return }
        if stream == nil { stream = try? connection.openStream() }
        guard let stream, (try? connection.write(Array("held".utf8), to: stream)) != nil else { return }
        if connection.isHolding { holds += 1 }
    }
}

extension QuicConnection {
    /// Stream bytes of ours ngtcp2 has taken so far, for the limits the peer set.
    fileprivate func sentOffset(_ streamID: QuicStreamID) -> UInt64 { streams[streamID]?.sentOffset ?? 0 }
}
