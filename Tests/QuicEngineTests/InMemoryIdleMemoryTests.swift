import Glibc
import QuicSimulation
import TestSupport
import Testing
@testable import QuicEngine

/// An idle connection's ngtcp2 pages set aside and brought back (``QuicConfiguration/idleMemoryDelay``):
/// whatever the connection does next works as if they had never left.
@Suite("Idle memory set aside, virtual clock")
struct InMemoryIdleMemoryTests {
    /// Idle for longer than twice the delay, both ends set their pages aside; then a burst of
    /// chat lines, a 2 MB file on a bulk stream and datagrams go through intact, echoed back,
    /// and the connection idles and is set aside again, closes cleanly.
    @Test func idleThenBurstAndFile() throws {
        let pair = try EnginePair()
        #expect(pair.handshake())
        let serverConnection = try #require(pair.serverConnections.first)
        pair.run(for: .seconds(5))
        #expect(serverConnection.isSetAside && pair.connection.isSetAside)
        #expect(pair.server.statistics.idleMemorySetAsides == 1 && pair.server.statistics.idleMemoryRestores == 0)

        try burstAndFile(pair, seed: 1)
        #expect(pair.server.statistics.idleMemoryRestores >= 1)
        #expect(!serverConnection.isSetAside)

        pair.run(for: .seconds(5))
        #expect(serverConnection.isSetAside && pair.connection.isSetAside)
        #expect(pair.server.statistics.idleMemorySetAsides >= 2)
        pair.connection.close(applicationCode: 42, reason: "done")
        #expect(pair.run(for: .seconds(5), until: { pair.serverCloseReason != nil }))
        #expect(pair.serverCloseReason == QuicCloseReason(kind: .application(code: 42), reason: "done", byPeer: true))
    }

    /// Through loss, reordering and duplication, idle spells (with packets still in flight and
    /// loss timers running when they begin) and bursts alternate: every byte arrives, in order.
    @Test(arguments: [true, false]) func idleSpellsThroughALossyLink(setAside: Bool) throws {
        var server = EngineFixtures.serverConfiguration()
        var client = EngineFixtures.clientConfiguration()
        if !setAside { (server.connection.idleMemoryDelay, client.idleMemoryDelay) = (nil, nil) }
        let pair = try EnginePair(impairment: .init(loss: 0.1, duplication: 0.01, delay: .milliseconds(10), jitter: .milliseconds(8)), seed: 9,
                                  serverConfiguration: server, clientConfiguration: client)
        #expect(pair.handshake())
        for round in 0..<4 {
            try burstAndFile(pair, seed: UInt64(round) + 2, fileBytes: 256 << 10)
            pair.run(for: .seconds(6))
        }
        #expect(pair.server.statistics.idleMemorySetAsides >= (setAside ? 3 : 0))
        #expect(pair.server.statistics.idleMemoryRestores >= (setAside ? 3 : 0))
        #expect(pair.clientCloseReason == nil && pair.serverCloseReason == nil)
    }

    /// With no delay configured nothing is ever set aside.
    @Test func noDelayKeepsThePages() throws {
        var server = EngineFixtures.serverConfiguration()
        server.connection.idleMemoryDelay = nil
        var client = EngineFixtures.clientConfiguration()
        client.idleMemoryDelay = nil
        let pair = try EnginePair(serverConfiguration: server, clientConfiguration: client)
        #expect(pair.handshake())
        pair.run(for: .seconds(10))
        #expect(pair.server.statistics.idleMemorySetAsides == 0 && pair.client.statistics.idleMemorySetAsides == 0)
        #expect(pair.serverConnections.first?.isSetAside == false)
    }

    /// A hundred 200-byte chat lines on one stream and a 2 MB file on a bulk stream, echoed
    /// back by the server; both come back whole, and a datagram too.
    private func burstAndFile(_ pair: EnginePair, seed: UInt64, fileBytes: Int = 2 << 20) throws {
        let chat = try pair.connection.openStream()
        let file = try pair.connection.openStream(bulk: true)
        var chatSent: [UInt8] = []
        for line in 0..<100 {
            let bytes = EngineFixtures.payload(count: 200, seed: seed &* 1000 &+ UInt64(line))
            chatSent += bytes
            _ = try pair.connection.write(bytes, to: chat, fin: line == 99)
        }
        let sender = BulkSender(payload: EngineFixtures.payload(count: fileBytes, seed: seed), stream: file)
        var expected = EngineFixtures.Checksum()
        expected.add(sender.payload)
        try sender.pump(pair.connection)
        try pair.connection.sendDatagram(Array("typing \(seed)".utf8))
        var chatReceived: [UInt8] = []
        var chatDone = false
        var sink = StreamSink()
        var datagrams = 0
        #expect(pair.run(for: .seconds(300), until: { chatDone && sink.finished }, client: { connection, event in
            switch event {
            case .streamWritable(file): try? sender.pump(connection)
            case .streamData(chat, let bytes, let fin):
                chatReceived += bytes
                if fin { chatDone = true }
            case .streamData(file, let bytes, _):
                // Bulk data's credit waits for the application: this one takes it all at once.
                connection.releaseReceiveCredit(file, count: bytes.count)
                sink.take(event, stream: file)
            case .datagram: datagrams += 1
            default: break
            }
        }))
        #expect(chatReceived == chatSent)
        #expect(sink.checksum.value == expected.value && sink.checksum.count == expected.count)
        // Datagrams are unreliable; on a clean link the echo comes back.
        if pair.network.impairment.loss == 0 { #expect(datagrams == 1) }
    }

    /// The buffer a thread gathers set-aside pages in is kept from one set-aside to the next, and
    /// freed when its thread ends: threads that each set a connection aside and end keep none
    /// (each kept its 16 KiB for good before, which LeakSanitizer reported in `make test-asan`).
    @Test func aThreadThatSetsAsideAndEndsLeavesNothing() throws {
        // A pthread joined before the heap is read: its thread-local destructors have run by then.
        func setAsideOnANewThread() throws {
            var thread = pthread_t()
            let created = pthread_create(&thread, nil, { _ in
                if let pair = try? EnginePair(), pair.handshake() {
                    pair.run(for: .seconds(5))
                    pair.connection.close(applicationCode: 0, reason: "")
                    _ = pair.run(for: .seconds(5), until: { pair.serverCloseReason != nil })
                }
                return nil
            }, nil)
            try #require(created == 0)
            pthread_join(thread, nil)
        }
        try setAsideOnANewThread()
        // Counted rather than read off the heap, which the tests running beside this one move.
        let before = QuicConnection.setAsideScratchBuffers
        let threads = 40
        for _ in 0..<threads { try setAsideOnANewThread() }
        let kept = QuicConnection.setAsideScratchBuffers - before
        // Other tests' live threads may take one each meanwhile; forty ended threads keep none.
        #expect(kept < 10, "\(kept) scratch buffers kept after \(threads) threads ended")
    }
}
