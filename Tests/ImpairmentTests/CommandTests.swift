import Impairment
import Testing

extension ProxySuite {
    @Suite struct CommandTests {
        /// Live commands change impairments: loss 1 cuts traffic, loss 0 restores it, bad values are refused.
        @Test func liveImpairmentChanges() throws {
            let echo = try EchoServer()
            let proxy = try RunningProxy(server: echo.address)
            let client = try TestClient(proxy: proxy.address)
            #expect(try client.roundTrip("open") == "open")
            #expect(proxy.perform("loss 1") == "OK loss 1")
            #expect(try client.roundTrip("lost", timeout: 0.2) == nil)
            #expect(proxy.statistics { $0.up.droppedByLoss == 1 } != nil)
            #expect(proxy.perform("up-loss 0") == "OK up-loss 0")
            // Down still loses everything: the echo arrives but its reply does not.
            #expect(try client.roundTrip("half", timeout: 0.2) == nil)
            #expect(echo.received.last?.bytes == Array("half".utf8))
            #expect(proxy.perform("down-loss 0%") == "OK down-loss 0%")
            #expect(try client.roundTrip("open again") == "open again")
            for bad in ["loss 2", "delay 10", "corrupt-bits 0", "frobnicate 1", "loss", "blackhole soon", "rebind 1.2.3:4"] {
                #expect(proxy.perform(bad).hasPrefix("ERROR"), "\(bad)")
            }
            #expect(proxy.perform("help").hasPrefix("OK commands:"))
        }

        /// A live delay change applies to packets that arrive after it.
        @Test func liveDelayChange() throws {
            let echo = try EchoServer()
            let proxy = try RunningProxy(server: echo.address)
            let client = try TestClient(proxy: proxy.address)
            #expect(proxy.perform("up-delay 150ms") == "OK up-delay 150ms")
            let start = ContinuousClock.now
            #expect(try client.roundTrip("slow") == "slow")
            #expect(ContinuousClock.now - start >= .milliseconds(150))
        }
    }
}
