import TestSupport
import QuicSimulation
import Testing

@testable import QuicEngine

/// The acknowledgement hold (issue 25, ``QuicConfiguration/acknowledgementHold``): a client that
/// read small packets and owes only their ACK waits up to the hold from the first of them, so one
/// ACK covers what came meanwhile; nothing waits longer; its own data, a full-size datagram
/// (bulk data, a PATH_CHALLENGE) or too many packets end the hold at once; a bulk download is not
/// slowed. That control frames still leave at once with a holding client is
/// `InMemoryControlFrameTests` (its runs with `holding`).
@Suite("Engine in memory: the acknowledgement hold")
struct InMemoryAcknowledgementHoldTests {
    private static let oneWay = TimeSpan.milliseconds(5)
    private static let slack = TimeSpan.microseconds(50)
    private static let hold = TimeSpan.milliseconds(10)

    /// A settled pair whose client holds its ACKs for `hold`, and a stream the server opened.
    private final class Fixture {
        let pair: EnginePair
        let serverSide: QuicConnection
        let stream: QuicStreamID
        /// When the client sent each datagram, from the fixture's start.
        private(set) var clientSends: [MonotonicTime] = []
        private(set) var arrivals: [(text: String, at: MonotonicTime)] = []
        private var sentBefore: Int

        init(hold: TimeSpan, server: QuicServerConfiguration = EngineFixtures.serverConfiguration()) throws {
            var client = EngineFixtures.clientConfiguration()
            client.acknowledgementHold = hold
            pair = try EnginePair(serverConfiguration: server, clientConfiguration: client)
            pair.echo = false
            #expect(pair.handshake())
            pair.run(for: .milliseconds(300))
            serverSide = try #require(pair.serverConnections.first)
            stream = try serverSide.openStream()
            sentBefore = pair.client.statistics.datagramsSent
        }

        func run(for duration: TimeSpan, until done: () -> Bool = { false }) {
            pair.run(for: duration, until: {
                let sent = pair.client.statistics.datagramsSent
                if sent > sentBefore {
                    clientSends += Array(repeating: pair.network.now, count: sent - sentBefore)
                    sentBefore = sent
                }
                return done()
            }, client: { _, event in
                if case .streamData(self.stream, let bytes, _) = event {
                    for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
                        self.arrivals.append((String(line), self.pair.network.now))
                    }
                }
            })
        }

        /// The server writes `count` short lines `spacing` apart (each its own packet: the server
        /// does not coalesce), then the pair runs `after` more.
        func serverWrites(_ count: Int, spacing: TimeSpan, after: TimeSpan) throws {
            for index in 0..<count {
                try serverSide.write(Array("m\(index)\n".utf8), to: stream)
                run(for: spacing)
            }
            run(for: after)
        }
    }

    /// Five small packets 2 ms apart: one ACK for all of them, a hold after the first arrived,
    /// where ngtcp2's own schedule sends one for about every packet.
    @Test func oneAcknowledgementCoversThePacketsOfAHold() throws {
        let fixture = try Fixture(hold: Self.hold)
        let start = fixture.pair.network.now
        try fixture.serverWrites(5, spacing: .milliseconds(2), after: .milliseconds(40))
        #expect(fixture.arrivals.map(\.text) == (0..<5).map { "m\($0)" })
        #expect(fixture.clientSends.count == 1, "\(fixture.clientSends.count) client datagrams for five packets")
        let firstArrival = try #require(fixture.arrivals.first?.at)
        let sent = try #require(fixture.clientSends.first)
        #expect(firstArrival - start <= Self.oneWay + Self.slack)
        #expect(sent - firstArrival >= Self.hold && sent - firstArrival <= Self.hold + Self.slack,
                "the ACK left \(sent - firstArrival) after the first packet it covers")
        #expect(fixture.serverSide.statistics.bytesInFlight == 0, "the server's packets were never acknowledged")
        #expect(fixture.pair.client.statistics.acknowledgementHolds == 1)

        let unheld = try Fixture(hold: .zero)
        try unheld.serverWrites(5, spacing: .milliseconds(2), after: .milliseconds(40))
        #expect(unheld.clientSends.count >= 3, "ngtcp2's own schedule sent \(unheld.clientSends.count) for five packets")
    }

    /// Packets keep coming every 2 ms for 60 ms: every ACK leaves within the hold of the first
    /// packet it covers, so the server's loss recovery never waits longer than the hold.
    @Test func noPacketWaitsLongerThanTheHold() throws {
        let fixture = try Fixture(hold: Self.hold)
        try fixture.serverWrites(30, spacing: .milliseconds(2), after: .milliseconds(40))
        #expect(fixture.arrivals.count == 30)
        var pending = fixture.arrivals.map(\.at)
        for sent in fixture.clientSends {
            guard let oldest = pending.first else { break }
            #expect(sent - oldest <= Self.hold + Self.slack, "a packet waited \(sent - oldest) for its ACK")
            pending.removeAll { $0 <= sent }
        }
        #expect(pending.isEmpty, "\(pending.count) packets were never acknowledged")
        #expect(fixture.clientSends.count <= 8, "\(fixture.clientSends.count) ACKs for 30 packets in 60 ms")
    }

    /// The client's own message during a hold leaves at once and takes the ACK with it.
    @Test func theClientsOwnDataEndsTheHold() throws {
        let fixture = try Fixture(hold: Self.hold)
        try fixture.serverSide.write(Array("m0\n".utf8), to: fixture.stream)
        fixture.run(for: .milliseconds(6))
        #expect(fixture.pair.connection.isHoldingAcknowledgement)
        let written = fixture.pair.network.now
        let own = try fixture.pair.connection.openStream()
        try fixture.pair.connection.write(Array("hello".utf8), to: own)
        var arrived: MonotonicTime?
        fixture.pair.run(for: .milliseconds(30), until: { arrived != nil }, server: { _, event in
            if case .streamData(own, _, _) = event { arrived = fixture.pair.network.now }
        })
        let at = try #require(arrived)
        #expect(at - written <= Self.oneWay + Self.slack, "the client's message waited \(at - written)")
        #expect(!fixture.pair.connection.isHoldingAcknowledgement)
    }

    /// Eight packets end a hold before its time: a burst is acknowledged as ngtcp2 would.
    @Test func enoughPacketsEndTheHold() throws {
        let fixture = try Fixture(hold: Self.hold)
        try fixture.serverWrites(12, spacing: .microseconds(200), after: .milliseconds(30))
        let firstArrival = try #require(fixture.arrivals.first?.at)
        let sent = try #require(fixture.clientSends.first)
        #expect(sent - firstArrival < .milliseconds(2), "the first ACK of a burst left \(sent - firstArrival) after it began")
    }

    /// A 2 MB download takes no longer with the hold than without: full-size datagrams are never
    /// held, so the sender's window grows as ngtcp2's own schedule lets it.
    @Test func aBulkDownloadIsNotSlowed() throws {
        func downloadTime(hold: TimeSpan) throws -> TimeSpan {
            let fixture = try Fixture(hold: hold)
            let payload = EngineFixtures.payload(count: 2 << 20)
            let start = fixture.pair.network.now
            let pump = BulkSender(payload: payload, stream: fixture.stream)
            var sink = StreamSink()
            fixture.pair.eachStep = { try? pump.pump(fixture.serverSide) }
            #expect(fixture.pair.run(for: .seconds(30), until: { sink.finished }, client: { _, event in
                sink.take(event, stream: fixture.stream)
            }))
            #expect(sink.checksum.count == payload.count)
            return fixture.pair.network.now - start
        }
        let held = try downloadTime(hold: Self.hold)
        let unheld = try downloadTime(hold: .zero)
        #expect(held.nanoseconds <= unheld.nanoseconds + unheld.nanoseconds / 20, "with the hold \(held), without \(unheld)")
    }
}
