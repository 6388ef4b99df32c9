import Impairment
import Testing

extension ProxySuite {
    @Suite struct BlackholeTests {
        /// Sends a probe every 100 ms until one comes back; returns when that happened (nil after `limit`).
        private func firstReply(_ client: TestClient, limit: Duration) throws -> ContinuousClock.Instant? {
            let deadline = ContinuousClock.now + limit
            var attempt = 0
            while ContinuousClock.now < deadline {
                attempt += 1
                if try client.roundTrip("probe \(attempt)", timeout: 0.1) != nil {
                    // Drain replies to earlier probes that were merely slow, not dropped.
                    while try client.receive(timeout: 0) != nil {}
                    return .now
                }
            }
            return nil
        }

        /// The blackhole command drops everything for its duration, then traffic flows again.
        @Test func commandBlackholeDropsThenResumes() throws {
            let echo = try EchoServer()
            let proxy = try RunningProxy(server: echo.address)
            let client = try TestClient(proxy: proxy.address)
            #expect(try client.roundTrip("before") == "before")
            #expect(proxy.perform("blackhole 600ms").hasPrefix("OK blackhole"))
            let opened = ContinuousClock.now
            #expect(try client.roundTrip("during", timeout: 0.3) == nil)
            let resumed = try #require(try firstReply(client, limit: .seconds(3)))
            #expect(resumed - opened >= .milliseconds(550), "resumed after \(resumed - opened)")
            let statistics = try #require(proxy.statistics())
            #expect(statistics.up.droppedByBlackhole >= 2)
            #expect(!echo.received.contains { $0.bytes == Array("during".utf8) })
        }

        /// A --blackhole window from start drops the first packets, and traffic flows once it closes.
        @Test func scheduledBlackholeFromStart() throws {
            let echo = try EchoServer()
            let start = ContinuousClock.now
            let proxy = try RunningProxy(server: echo.address, ["--blackhole", "0s+500ms"])
            let client = try TestClient(proxy: proxy.address)
            let resumed = try #require(try firstReply(client, limit: .seconds(3)))
            #expect(resumed - start >= .milliseconds(500))
            #expect(try #require(proxy.statistics()).up.droppedByBlackhole >= 1)
        }

        /// A reply already on its way when a blackhole opens is dropped too: the window covers both directions.
        @Test func blackholeDropsReplies() throws {
            let echo = try EchoServer()
            let proxy = try RunningProxy(server: echo.address, ["--down-delay", "300ms"])
            let client = try TestClient(proxy: proxy.address)
            try client.send("question")
            // The reply is in the proxy, waiting out its delay, when the window opens.
            #expect(proxy.statistics { $0.down.queuedPackets == 1 } != nil)
            #expect(proxy.perform("blackhole 2s").hasPrefix("OK"))
            let statistics = proxy.statistics { $0.down.droppedByBlackhole == 1 }
            #expect(statistics != nil)
            #expect(statistics?.down.forwardedPackets == 0)
            #expect(try client.receive(timeout: 0.1) == nil)
        }
    }
}
