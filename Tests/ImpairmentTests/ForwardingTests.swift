import Impairment
import Testing

extension ProxySuite {
    @Suite struct ForwardingTests {
        /// Three clients each get exactly their own echoes back, through three distinct upstream sockets.
        @Test func severalClientsAreRelayedBothWays() throws {
            let echo = try EchoServer()
            let proxy = try RunningProxy(server: echo.address)
            let clients = try (0..<3).map { _ in try TestClient(proxy: proxy.address) }
            for round in 0..<5 {
                for (index, client) in clients.enumerated() {
                    let message = "client \(index) round \(round)"
                    #expect(try client.roundTrip(message) == message)
                }
            }
            #expect(echo.sources.count == 3)
            #expect(Set(echo.sources.map(\.port)).count == 3)
            let statistics = try #require(proxy.statistics())
            #expect(statistics.clients.count == 3)
            for client in clients {
                let counted = try #require(statistics.client(client.address))
                #expect(counted.upPackets == 5 && counted.downPackets == 5)
                #expect(counted.upForwardedPackets == 5 && counted.downForwardedPackets == 5)
                #expect(counted.upBytes == counted.downBytes)
                #expect(echo.sources.contains(counted.upstreamAddress))
            }
            #expect(statistics.up.forwardedPackets == 15 && statistics.down.forwardedPackets == 15)
        }

        /// A datagram reaching an upstream socket from anyone but the server is dropped and counted.
        @Test func repliesFromStrangersAreDropped() throws {
            let echo = try EchoServer()
            let proxy = try RunningProxy(server: echo.address)
            let client = try TestClient(proxy: proxy.address)
            #expect(try client.roundTrip("hello") == "hello")
            let upstream = try #require(proxy.statistics()?.client(client.address)?.upstreamAddress)
            let stranger = try TestClient(proxy: upstream)
            try stranger.send("not the server")
            let statistics = proxy.statistics { $0.down.droppedFromUnknownSource == 1 }
            #expect(statistics != nil)
            #expect(try client.receive(timeout: 0.2) == nil)
        }
    }
}
