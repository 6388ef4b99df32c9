import Digest
import QuicEngine
import QuicSimulation
import TestSupport
import Testing

/// Bulk streams (file transfers) next to interactive ones (chat) on one connection.
@Suite("Bulk streams, virtual clock")
struct BulkStreamTests {
    /// Chat data written after a megabyte of bulk data still goes out first: the receiver has
    /// all of it before more than one packet of the bulk stream's.
    @Test func interactiveDataGoesBeforeBulkData() throws {
        let pair = try EnginePair()
        pair.echo = false
        #expect(pair.handshake())
        let bulk = try pair.connection.openStream(bulk: true)
        let chat = try pair.connection.openStream()
        let chatBytes = EngineFixtures.payload(count: 12_000, seed: 3)
        _ = try pair.connection.write(EngineFixtures.payload(count: 1 << 20), to: bulk)
        _ = try pair.connection.write(chatBytes, to: chat)
        var chatReceived = 0
        var bulkBeforeChat = 0
        #expect(pair.run(until: { chatReceived == chatBytes.count }, server: { _, event in
            guard case .streamData(let stream, let bytes, _) = event else { return }
            if stream == chat { chatReceived += bytes.count } else if stream == bulk && chatReceived < chatBytes.count { bulkBeforeChat += bytes.count }
        }))
        #expect(bulkBeforeChat <= 1_500)
    }

    /// While bulk data fills the congestion window, a chat write and a datagram still find room
    /// in it at once: the window keeps a reserve that bulk data never takes.
    @Test func congestionWindowKeepsRoomForInteractiveData() throws {
        let pair = try EnginePair()
        pair.echo = false
        #expect(pair.handshake())
        let bulk = try pair.connection.openStream(bulk: true)
        let chat = try pair.connection.openStream()
        _ = try pair.connection.write(EngineFixtures.payload(count: 4 << 20), to: bulk)
        let now = pair.network.now
        var bulkPackets = 0
        while pair.client.pollTransmit(now: now) != nil { bulkPackets += 1 }
        let statistics = pair.connection.statistics
        #expect(bulkPackets > 3)
        // Bulk data stopped because of the window (pacing lets the first flight go at once).
        #expect(statistics.bytesInFlight + UInt64(3 * statistics.maxUDPPayloadSize) > statistics.congestionWindow)
        try pair.connection.write(Array("a chat line".utf8), to: chat)
        #expect(pair.client.pollTransmit(now: now) != nil)
        try pair.connection.sendDatagram(Array("typing".utf8))
        #expect(pair.client.pollTransmit(now: now) != nil)
    }

    /// Two bulk streams share the connection packet by packet: when one has arrived whole, so
    /// has nearly all of the other.
    @Test func bulkStreamsShareFairly() throws {
        let pair = try EnginePair()
        pair.echo = false
        #expect(pair.handshake())
        let size = 2 << 20
        let senders = try (0..<2).map { _ in BulkSender(payload: EngineFixtures.payload(count: size), stream: try pair.connection.openStream(bulk: true)) }
        for sender in senders { try sender.pump(pair.connection) }
        var received: [QuicStreamID: Int] = [:]
        var otherWhenFirstDone: Int?
        #expect(pair.run(until: { otherWhenFirstDone != nil }, client: { connection, event in
            if case .streamWritable(let stream) = event { try? senders.first { $0.stream == stream }?.pump(connection) }
        }, server: { _, event in
            guard case .streamData(let stream, let bytes, _) = event else { return }
            received[stream, default: 0] += bytes.count
            if received[stream] == size, otherWhenFirstDone == nil {
                otherWhenFirstDone = received.filter { $0.key != stream }.values.first ?? 0
            }
        }))
        #expect((otherWhenFirstDone ?? 0) > size * 9 / 10)
    }

    /// A bulk stream's delivered bytes open its window only when the application releases them:
    /// a reader that consumes nothing receives one window's worth, while chat on the same
    /// connection keeps flowing; released, the rest arrives.
    @Test func bulkCreditWaitsForTheApplication() throws {
        let pair = try EnginePair()
        pair.echo = false
        #expect(pair.handshake())
        let bulk = try pair.connection.openStream(bulk: true)
        let chat = try pair.connection.openStream()
        let size = 4 << 20
        let sender = BulkSender(payload: EngineFixtures.payload(count: size), stream: bulk)
        try sender.pump(pair.connection)
        var bulkReceived = 0
        var chatReceived = 0
        var serverConnection: QuicConnection?
        let pump: (QuicConnection, QuicEvent) -> Void = { connection, event in
            if case .streamWritable(bulk) = event { try? sender.pump(connection) }
        }
        let receive: (QuicConnection, QuicEvent) -> Void = { connection, event in
            switch event {
            case .streamOpened(bulk):
                connection.markBulk(bulk)
                serverConnection = connection
            case .streamData(bulk, let bytes, _): bulkReceived += bytes.count
            case .streamData(chat, let bytes, _): chatReceived += bytes.count
            default: break
            }
        }
        pair.run(for: .seconds(2), client: pump, server: receive)
        let window = Int(EngineFixtures.serverConfiguration().connection.initialMaxStreamData)
        #expect(bulkReceived > 0 && bulkReceived <= window)
        try pair.connection.write(Array("still here".utf8), to: chat)
        #expect(pair.run(for: .seconds(2), until: { chatReceived == 10 }, client: pump, server: receive))
        let connection = try #require(serverConnection)
        connection.releaseReceiveCredit(bulk, count: bulkReceived)
        #expect(pair.run(for: .seconds(60), until: { bulkReceived == size }, client: pump, server: { peer, event in
            receive(peer, event)
            if case .streamData(bulk, let bytes, _) = event { peer.releaseReceiveCredit(bulk, count: bytes.count) }
        }))
        #expect(bulkReceived == size)
    }

    /// MAX_STREAMS grows as the peer's streams close: with room for three streams at once, a
    /// fourth is refused until one of the three has closed, and then opens.
    @Test func streamCreditGrowsAsStreamsClose() throws {
        var server = EngineFixtures.serverConfiguration()
        server.connection.maxBidirectionalStreams = 3
        let pair = try EnginePair(serverConfiguration: server)
        #expect(pair.handshake())
        let streams = try (0..<3).map { _ in try pair.connection.openStream() }
        #expect(throws: QuicError.streamLimitReached) { try pair.connection.openStream() }
        try pair.connection.write(Array("done".utf8), to: streams[0], fin: true)
        var finished = false
        #expect(pair.run(until: { finished }, client: { _, event in
            if case .streamData(streams[0], _, true) = event { finished = true }
        }))
        // The echo's FIN closed the stream on both sides; the new credit follows in the next packets.
        var opened: QuicStreamID?
        #expect(pair.run(for: .seconds(2), until: {
            opened = opened ?? (try? pair.connection.openStream())
            return opened != nil
        }))
        #expect(opened == 12)
    }

    /// 50 MiB on a bulk stream through 5% loss both ways arrive intact (SHA-256 compared), the
    /// receiver releasing credit as it consumes, while chat lines sent every 50 ms all arrive.
    @Test func fiftyMebibytesThroughFivePercentLoss() throws {
        let pair = try EnginePair(impairment: .init(loss: 0.05, delay: .milliseconds(10), jitter: .milliseconds(2)), seed: 5)
        pair.echo = false
        #expect(pair.handshake())
        let size = 50 << 20
        let bulk = try pair.connection.openStream(bulk: true)
        let chat = try pair.connection.openStream()
        let sender = BulkSender(payload: EngineFixtures.payload(count: size, seed: 11), stream: bulk)
        let expected = SHA256.hex(of: sender.payload)
        try sender.pump(pair.connection)
        let received = SHA256()
        var receivedCount = 0
        var finished = false
        var chatSent = 0
        var chatReceived = 0
        var nextChat = pair.network.now
        #expect(pair.run(for: .seconds(600), until: {
            if pair.network.now >= nextChat, !sender.finished {
                _ = try? pair.connection.write(Array("line \(chatSent)\n".utf8), to: chat)
                chatSent += 1
                nextChat = pair.network.now + .milliseconds(50)
            }
            return finished && chatReceived == chatSent
        }, client: { connection, event in
            if case .streamWritable(bulk) = event { try? sender.pump(connection) }
        }, server: { connection, event in
            switch event {
            case .streamOpened(bulk): connection.markBulk(bulk)
            case .streamData(bulk, let bytes, let fin):
                received.update(bytes)
                receivedCount += bytes.count
                connection.releaseReceiveCredit(bulk, count: bytes.count)
                if fin { finished = true }
            case .streamData(chat, let bytes, _): chatReceived += bytes.filter { $0 == 0x0A }.count
            default: break
            }
        }))
        #expect(receivedCount == size)
        #expect(received.finishHex() == expected)
        #expect(chatSent > 10)
        #expect(pair.network.dropped > 1000)
    }
}
