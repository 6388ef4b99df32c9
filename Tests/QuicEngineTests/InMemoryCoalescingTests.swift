import TestSupport
import QuicSimulation
import Testing

@testable import QuicEngine

/// The coalescing window (issue 25, ``QuicConfiguration/coalescingWindow``): stream data written
/// to a connection that sent a packet less than a window ago, less than half a window after the
/// previous write, waits until a window after that packet and leaves with what was written
/// meanwhile; a quiet connection, or one written to less often, sends at once; nothing
/// waits longer than the window; datagrams and bulk data are never held and take held data with
/// them. That control frames are never held is `InMemoryControlFrameTests` (each test there runs
/// with a window too).
@Suite("Engine in memory: the coalescing window")
struct InMemoryCoalescingTests {
    private static let oneWay = TimeSpan.milliseconds(5)
    private static let slack = TimeSpan.microseconds(50)
    private static let window = TimeSpan.milliseconds(20)

    /// A settled pair whose server coalesces, quiet for longer than a window, and a stream the
    /// server opened whose bytes the client records with their arrival times.
    private final class Fixture {
        let pair: EnginePair
        let serverSide: QuicConnection
        let stream: QuicStreamID
        private(set) var arrivals: [(text: String, at: MonotonicTime)] = []
        private(set) var datagrams: [MonotonicTime] = []

        init(window: TimeSpan = InMemoryCoalescingTests.window) throws {
            var server = EngineFixtures.serverConfiguration()
            server.connection.coalescingWindow = window
            pair = try EnginePair(serverConfiguration: server)
            pair.echo = false
            #expect(pair.handshake())
            pair.run(for: .milliseconds(300))
            serverSide = try #require(pair.serverConnections.first)
            stream = try serverSide.openStream()
        }

        /// Runs for `duration`, recording what reaches the client.
        func run(for duration: TimeSpan, until done: () -> Bool = { false }) {
            pair.run(for: duration, until: done, client: { _, event in
                switch event {
                case .streamData(self.stream, let bytes, _):
                    // Each write is a short line: split what arrived into them.
                    for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
                        self.arrivals.append((String(line), self.pair.network.now))
                    }
                case .datagram:
                    self.datagrams.append(self.pair.network.now)
                default: break
                }
            })
        }

        func write(_ text: String) throws {
            try serverSide.write(Array((text + "\n").utf8), to: stream)
        }

        func arrival(of text: String) -> MonotonicTime? { arrivals.first { $0.text == text }?.at }

        var packetsToClient: Int { pair.client.statistics.datagramsReceived }
    }

    /// A connection quiet for longer than a window sends at once: an idle member pays nothing.
    @Test func quietConnectionSendsAtOnce() throws {
        let fixture = try Fixture()
        let start = fixture.pair.network.now
        try fixture.write("first")
        #expect(!fixture.serverSide.isHolding)
        fixture.run(for: .milliseconds(50), until: { fixture.arrival(of: "first") != nil })
        let arrived = try #require(fixture.arrival(of: "first"))
        #expect(arrived - start <= Self.oneWay + Self.slack)
    }

    /// Writes within a window of the last packet wait for the window's end and leave together in
    /// one packet, a window after that packet.
    @Test func writesWithinTheWindowShareOnePacket() throws {
        let fixture = try Fixture()
        let first = fixture.pair.network.now
        try fixture.write("first")
        fixture.run(for: .milliseconds(3))
        try fixture.write("second")
        #expect(fixture.serverSide.isHolding, "a write 3 ms after a packet was not held")
        fixture.run(for: .milliseconds(3))
        try fixture.write("third")
        let packetsBefore = fixture.packetsToClient
        fixture.run(for: .milliseconds(100), until: { fixture.arrival(of: "third") != nil })
        let second = try #require(fixture.arrival(of: "second"))
        let third = try #require(fixture.arrival(of: "third"))
        #expect(second == third, "the held writes left in different packets")
        #expect(fixture.packetsToClient - packetsBefore == 1, "\(fixture.packetsToClient - packetsBefore) packets for two held writes")
        // The first packet left at `first`; the hold ends a window later.
        #expect(second - first >= Self.window + Self.oneWay)
        #expect(second - first <= Self.window + Self.oneWay + Self.slack)
    }

    /// A write every millisecond for 200 ms: each arrives within a window (and the link's delay)
    /// of its write, and the writes travel a window's worth per packet, not one per packet.
    @Test func noWriteWaitsLongerThanTheWindow() throws {
        let fixture = try Fixture()
        var written: [String: MonotonicTime] = [:]
        for index in 0..<200 {
            written["w\(index)"] = fixture.pair.network.now
            try fixture.write("w\(index)")
            fixture.run(for: .milliseconds(1))
        }
        fixture.run(for: .milliseconds(100), until: { fixture.arrival(of: "w199") != nil })
        #expect(fixture.arrivals.map(\.text) == (0..<200).map { "w\($0)" }, "lost, doubled or reordered")
        for (text, at) in fixture.arrivals {
            let waited = at - written[text]!
            #expect(waited <= Self.window + Self.oneWay + Self.slack, "\(text) arrived \(waited) after its write")
        }
        // About 200 ms / 20 ms = 10 flights of data, and nothing like 200. (A few more: each time
        // the client's ACK-only packets carry a PING, ngtcp2's way of getting its ACKs
        // acknowledged, the server's ACK takes what is held with it.)
        let flights = Set(fixture.arrivals.map(\.at)).count
        #expect(flights <= 15, "\(flights) flights for 200 writes in 200 ms")
    }

    /// A datagram (typing) leaves at once and takes the held data with it.
    @Test func datagramTakesHeldDataWithIt() throws {
        let fixture = try Fixture()
        try fixture.write("first")
        fixture.run(for: .milliseconds(2))
        try fixture.write("held")
        #expect(fixture.serverSide.isHolding)
        let start = fixture.pair.network.now
        try fixture.serverSide.sendDatagram(Array("typing".utf8))
        fixture.run(for: .milliseconds(50), until: { !fixture.datagrams.isEmpty && fixture.arrival(of: "held") != nil })
        let datagram = try #require(fixture.datagrams.first)
        let held = try #require(fixture.arrival(of: "held"))
        #expect(datagram - start <= Self.oneWay + Self.slack, "the datagram waited \(datagram - start)")
        #expect(held == datagram, "the held data did not leave with the datagram")
    }

    /// Bulk data (a file) is never held: its next chunk would wait a window each time the pipe
    /// drained. It takes held chat data with it.
    @Test func bulkDataIsNeverHeldAndTakesHeldDataWithIt() throws {
        let fixture = try Fixture()
        try fixture.write("first")
        fixture.run(for: .milliseconds(2))
        try fixture.write("held")
        #expect(fixture.serverSide.isHolding)
        let bulk = try fixture.serverSide.openStream(bulk: true)
        let start = fixture.pair.network.now
        try fixture.serverSide.write(Array("chunk".utf8), to: bulk)
        var chunkAt: MonotonicTime?
        fixture.pair.run(for: .milliseconds(50), until: { chunkAt != nil }, client: { _, event in
            if case .streamData(bulk, _, _) = event { chunkAt = fixture.pair.network.now }
        })
        let chunk = try #require(chunkAt)
        #expect(chunk - start <= Self.oneWay + Self.slack, "the bulk chunk waited \(chunk - start)")
        #expect(!fixture.serverSide.isHolding, "the held data stayed behind")
    }

    /// Writes further apart than half a window are sent at once although the last packet left
    /// less than a window ago: no other write is likely to join them, and holding one would only
    /// cost a wake-up at the hold's end.
    @Test func sparseWritesAreSentAtOnce() throws {
        let fixture = try Fixture()
        try fixture.write("first")
        fixture.run(for: .milliseconds(12))
        let start = fixture.pair.network.now
        try fixture.write("second")
        #expect(!fixture.serverSide.isHolding, "a write 12 ms after the last, with a 20 ms window, was held")
        fixture.run(for: .milliseconds(50), until: { fixture.arrival(of: "second") != nil })
        #expect(try #require(fixture.arrival(of: "second")) - start <= Self.oneWay + Self.slack)
    }

    /// A window of zero never holds.
    @Test func zeroWindowNeverHolds() throws {
        let fixture = try Fixture(window: .zero)
        try fixture.write("first")
        fixture.run(for: .milliseconds(1))
        let start = fixture.pair.network.now
        try fixture.write("second")
        #expect(!fixture.serverSide.isHolding)
        fixture.run(for: .milliseconds(50), until: { fixture.arrival(of: "second") != nil })
        #expect(try #require(fixture.arrival(of: "second")) - start <= Self.oneWay + Self.slack)
    }
}
