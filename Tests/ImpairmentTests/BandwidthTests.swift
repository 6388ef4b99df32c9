import Impairment
import Testing

extension ProxySuite {
    @Suite struct BandwidthTests {
        /// A 200 kB/s cap spreads a 100 kB burst over at least half a second at the server, in order.
        @Test func capLimitsThroughput() throws {
            let echo = try EchoServer()
            let proxy = try RunningProxy(server: echo.address, ["--up-bandwidth", "200kB", "--up-queue", "1MB"])
            let client = try TestClient(proxy: proxy.address)
            let start = ContinuousClock.now
            for sequence in 0..<100 { try client.send(NumberedPacket.make(sequence, size: 1000)) }
            #expect(echo.waitForPackets(100, timeout: 5))
            let arrivals = echo.received
            // The cap is a lower bound on when the last packet can arrive: 99 packets after the
            // first, 5 ms each at 200 kB/s, 495 ms after the sends began (room for 1 ms timers).
            // Measured from the send rather than from the first arrival, whose timestamp a slow
            // receiving thread (a sanitized build) can take late, shortening the span it begins.
            let last = try #require(arrivals.last?.time)
            #expect(last - start >= .milliseconds(480), "last arrival \(last - start) after the first send")
            // No upper bound on the wall clock: how late the last packet comes depends on the
            // machine (2.4 s for this span under ThreadSanitizer on a loaded machine). That the
            // shaper spaces packets at the rate, and no more, is `bandwidthShaperSpacesAndDrops`'s,
            // on the shaper's own clock.
            #expect(arrivals.map { NumberedPacket.sequence(of: $0.bytes) } == Array(0..<100))
        }

        /// A burst larger than the queue is tail-dropped, so the queue limit bounds what gets through.
        @Test func queueOverflowIsTailDropped() throws {
            let echo = try EchoServer()
            let proxy = try RunningProxy(server: echo.address, ["--up-bandwidth", "100kB", "--up-queue", "10kB"])
            let client = try TestClient(proxy: proxy.address)
            for sequence in 0..<50 { try client.send(NumberedPacket.make(sequence, size: 1000)) }
            let settled = try #require(proxy.statistics { $0.up.receivedPackets == 50 && $0.up.queuedPackets == 0 })
            #expect(settled.up.forwardedPackets + settled.up.droppedByQueueOverflow == 50)
            #expect((9...20).contains(settled.up.forwardedPackets), "forwarded \(settled.up.forwardedPackets)")
            #expect(echo.waitForPackets(settled.up.forwardedPackets, timeout: 5))
            let survivors = echo.received.map { NumberedPacket.sequence(of: $0.bytes) }
            #expect(survivors.first == 0, "drop-tail keeps the head of the burst")
        }
    }
}
