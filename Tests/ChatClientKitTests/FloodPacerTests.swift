import ChatClientKit
import QuicEngine
import Testing

struct FloodPacerTests {
    static let start = MonotonicTime(nanoseconds: 1_000_000_000_000)

    static func at(_ seconds: Double) -> MonotonicTime {
        start + TimeSpan(nanoseconds: UInt64(seconds * 1e9))
    }

    /// A fresh connection sends its burst (less the hello's two messages) at once, then waits.
    @Test func burstThenWait() {
        var pacer = FloodPacer(now: Self.start)
        pacer.restart(now: Self.start, spent: 2)
        let sent = (0..<30).filter { _ in pacer.take(now: Self.start) }.count
        #expect(sent == 18)
        #expect(pacer.nextToken(now: Self.start) > Self.start)
    }

    /// Sustained, it sends at 90% of 5 a second: never faster than the server's bucket refills.
    @Test func sustainedRateStaysUnderTheServers() {
        var pacer = FloodPacer(now: Self.start)
        pacer.restart(now: Self.start, spent: 20)
        var now = Self.start
        var sent = 0
        while now < Self.at(10) {
            if pacer.take(now: now) {
                sent += 1
            } else {
                now = pacer.nextToken(now: now)
            }
        }
        #expect((44...45).contains(sent))
    }

    /// A server bucket with burst 20 and 5 a second, fed by the pacer's sends with up to 20 ms of
    /// arrival jitter, never runs dry.
    @Test func neverTripsTheServersBucket() {
        var pacer = FloodPacer(now: Self.start)
        var serverTokens = 20.0
        var lastArrival = Self.at(0)
        var now = Self.start
        var jitter = false
        for _ in 0..<300 {
            while !pacer.take(now: now) { now = pacer.nextToken(now: now) }
            // Alternate arrivals early and late by 10 ms: the bunching a network adds.
            let arrival = jitter ? now + .milliseconds(10) : now
            jitter.toggle()
            serverTokens = min(20, serverTokens + max(0, (arrival - lastArrival).seconds) * 5)
            lastArrival = max(lastArrival, arrival)
            #expect(serverTokens >= 1)
            serverTokens -= 1
        }
    }

    /// A refusal empties the bucket and shrinks burst and rate; a long run of accepted messages
    /// grows them back, never past the protocol's defaults.
    @Test func learnsFromRefusals() {
        var pacer = FloodPacer(now: Self.start)
        pacer.refused(now: Self.start)
        #expect(pacer.tokens == 0)
        #expect(pacer.burst == 15)
        #expect(pacer.rate == 3.75)
        for _ in 0..<10 { pacer.refused(now: Self.start) }
        #expect(pacer.burst >= FloodPacer.minimumBurst)
        #expect(pacer.rate >= FloodPacer.minimumRate)
        for _ in 0..<2_000 { pacer.accepted() }
        #expect(pacer.burst == FloodPacer.protocolBurst)
        #expect(pacer.rate == FloodPacer.protocolRate)
    }

    /// After a refusal the next token comes at the learned, slower pace.
    @Test func slowerAfterARefusal() {
        var pacer = FloodPacer(now: Self.start)
        pacer.refused(now: Self.start)
        let next = pacer.nextToken(now: Self.start)
        #expect(abs((next - Self.start).seconds - 1 / (3.75 * FloodPacer.rateMargin)) < 0.001)
    }
}
