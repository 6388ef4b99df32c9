import Impairment
import Testing

extension ProxySuite {
    @Suite struct RebindingTests {
        /// rebind gives the client a new source port toward the server, on the same IP, and replies keep coming.
        @Test func rebindChangesSourcePort() throws {
            let echo = try EchoServer()
            let proxy = try RunningProxy(server: echo.address)
            let client = try TestClient(proxy: proxy.address)
            #expect(try client.roundTrip("before") == "before")
            #expect(proxy.perform("rebind") == "OK rebind 1")
            #expect(try client.roundTrip("after") == "after")
            let sources = echo.sources
            try #require(sources.count == 2)
            #expect(sources[0].host == sources[1].host)
            #expect(sources[0].port != sources[1].port)
            let counted = try #require(proxy.statistics()?.client(client.address))
            #expect(counted.rebinds == 1 && counted.upstreamAddress == sources[1])
        }

        /// rebind-address moves the source to 127.0.0.2, then 127.0.0.3, with replies relayed each time.
        @Test func rebindAddressCyclesLoopbackAddresses() throws {
            let echo = try EchoServer()
            let proxy = try RunningProxy(server: echo.address)
            let client = try TestClient(proxy: proxy.address)
            #expect(try client.roundTrip("first") == "first")
            #expect(proxy.perform("rebind-address") == "OK rebind-address 1")
            #expect(try client.roundTrip("second") == "second")
            #expect(proxy.perform("rebind-address") == "OK rebind-address 1")
            #expect(try client.roundTrip("third") == "third")
            #expect(echo.sources.map(\.host) == ["127.0.0.1", "127.0.0.2", "127.0.0.3"])
        }

        /// --rebind-every with --rebind-address rebinds on schedule, and the client keeps being answered.
        @Test func scheduledRebinding() throws {
            let echo = try EchoServer()
            let proxy = try RunningProxy(server: echo.address, ["--rebind-every", "150ms", "--rebind-address"])
            let client = try TestClient(proxy: proxy.address)
            #expect(try client.roundTrip("first") == "first")
            #expect(proxy.statistics(within: 3) { $0.rebinds >= 2 } != nil)
            #expect(try client.roundTrip("later") == "later")
            let sources = echo.sources
            #expect(sources.first?.host == "127.0.0.1")
            #expect(sources.count == 2 && sources.last?.host != "127.0.0.1")
        }

        /// A packet queued before a rebind leaves from the new socket, and its reply still reaches the client.
        @Test func queuedPacketsUseTheNewMapping() throws {
            let echo = try EchoServer()
            let proxy = try RunningProxy(server: echo.address, ["--up-delay", "200ms"])
            let client = try TestClient(proxy: proxy.address)
            try client.send("queued")
            #expect(proxy.statistics { $0.up.queuedPackets == 1 } != nil)
            #expect(proxy.perform("rebind") == "OK rebind 1")
            #expect(try client.receive().map { String(decoding: $0, as: UTF8.self) } == "queued")
            let upstream = try #require(proxy.statistics()?.client(client.address)?.upstreamAddress)
            #expect(echo.sources == [upstream])
        }

        /// rebind with a client address moves only that client; an unknown address is refused.
        @Test func rebindOneClient() throws {
            let echo = try EchoServer()
            let proxy = try RunningProxy(server: echo.address)
            let alice = try TestClient(proxy: proxy.address)
            let bob = try TestClient(proxy: proxy.address)
            #expect(try alice.roundTrip("a") == "a")
            #expect(try bob.roundTrip("b") == "b")
            #expect(proxy.perform("rebind \(alice.address)") == "OK rebind 1")
            #expect(proxy.perform("rebind 127.0.0.1:1").hasPrefix("ERROR no client"))
            let statistics = try #require(proxy.statistics())
            #expect(statistics.client(alice.address)?.rebinds == 1)
            #expect(statistics.client(bob.address)?.rebinds == 0)
            #expect(try alice.roundTrip("a2") == "a2")
        }
    }
}
