import Impairment
import Testing

extension ProxySuite {
    @Suite struct DelayTests {
        /// With 80 ms each way, every round trip takes at least 160 ms, and not absurdly longer.
        @Test func delayAppliesInBothDirections() throws {
            let echo = try EchoServer()
            let proxy = try RunningProxy(server: echo.address, ["--delay", "80ms"])
            let client = try TestClient(proxy: proxy.address)
            for attempt in 0..<3 {
                let start = ContinuousClock.now
                #expect(try client.roundTrip("ping \(attempt)") == "ping \(attempt)")
                let roundTrip = ContinuousClock.now - start
                #expect(roundTrip >= .milliseconds(160), "round trip \(roundTrip)")
                #expect(roundTrip < .milliseconds(660), "round trip \(roundTrip)")
            }
        }

        /// Jitter spreads one-way delays over delay ± jitter: round trips vary but stay inside the band.
        @Test func jitterSpreadsDelays() throws {
            let echo = try EchoServer()
            let proxy = try RunningProxy(server: echo.address, ["--up-delay", "40ms", "--up-jitter", "30ms"])
            let client = try TestClient(proxy: proxy.address)
            var roundTrips: [Duration] = []
            for attempt in 0..<12 {
                let start = ContinuousClock.now
                #expect(try client.roundTrip("ping \(attempt)") == "ping \(attempt)")
                roundTrips.append(ContinuousClock.now - start)
            }
            let shortest = try #require(roundTrips.min())
            let longest = try #require(roundTrips.max())
            #expect(shortest >= .milliseconds(10), "shortest \(shortest)")
            #expect(longest < .milliseconds(70 + 300), "longest \(longest)")
            #expect(longest - shortest >= .milliseconds(5), "no spread: \(roundTrips)")
        }

        /// Held-back packets arrive after packets sent later: reordering is observable and counted.
        @Test func reorderingHoldsPacketsBack() throws {
            let echo = try EchoServer()
            let proxy = try RunningProxy(
                server: echo.address, ["--up-reorder", "0.3", "--up-reorder-delay", "50ms", "--seed", "3"])
            let client = try TestClient(proxy: proxy.address)
            for sequence in 0..<40 { try client.send(NumberedPacket.make(sequence, size: 32)) }
            #expect(echo.waitForPackets(40, timeout: 5))
            let order = echo.received.map { NumberedPacket.sequence(of: $0.bytes) }
            #expect(Set(order) == Set(0..<40))
            #expect(order != order.sorted())
            let statistics = try #require(proxy.statistics())
            #expect(statistics.up.reordered > 0 && statistics.up.reordered < 40)
        }

        /// Three thousand packets queued for half a second all arrive, none early, without the loop spinning.
        @Test func thousandsOfDelayedPacketsWithoutSpinning() throws {
            let echo = try EchoServer()
            let proxy = try RunningProxy(server: echo.address, ["--up-delay", "500ms"])
            let client = try TestClient(proxy: proxy.address)
            let total = 3000
            let start = ContinuousClock.now
            for sequence in 0..<total { try client.send(NumberedPacket.make(sequence, size: 200)) }
            let queued = try #require(proxy.statistics { $0.up.receivedPackets == total })
            #expect(queued.up.queuedPackets + queued.up.forwardedPackets == total)
            let delivered = try #require(proxy.statistics { $0.up.forwardedPackets == total })
            #expect(ContinuousClock.now - start >= .milliseconds(500))
            #expect(delivered.up.queuedPackets == 0 && delivered.up.queuedBytes == 0)
            #expect(echo.waitForPackets(total, timeout: 5))
            let firstArrival = try #require(echo.received.first?.time)
            #expect(firstArrival - start >= .milliseconds(500))
            // A spinning loop would wake up millions of times in half a second; a sleeping one
            // wakes about once per millisecond of releases plus once per burst of arrivals.
            #expect(delivered.loopWakeups - queued.loopWakeups < 2000, "wake-ups: \(delivered.loopWakeups - queued.loopWakeups)")
        }
    }
}
