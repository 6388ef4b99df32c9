import RuntimeCore
import TestSupport
import Testing

@testable import QuicEngine

/// A server that asks for Retry under load answers the same client the same way: the copy of a
/// first Initial it answered with a Retry gets a Retry again after the load fell, never a
/// connection (the two answers clash at the client: TRANSPORT_PARAMETER_ERROR).
@Suite struct RetryConsistencyTests {
    @Test func aRetriedInitialsCopyIsRetriedAfterTheLoadFell() throws {
        var configuration = EngineFixtures.serverConfiguration()
        configuration.retryAboveHandshakes = 2
        let start = MonotonicTime.now()
        let server = try QuicEndpoint(server: configuration, now: start)
        let local = SocketAddress(host: "127.0.0.1", port: 4433)!
        func client(_ port: UInt16) -> SocketAddress { SocketAddress(host: "127.0.0.1", port: port)! }
        func initial() throws -> [UInt8] { try GarbageMaker.realInitial(alpn: [EngineFixtures.alpn]) }
        server.receive(try initial(), from: client(1001), to: local, now: start)
        server.receive(try initial(), from: client(1002), to: local, now: start)
        #expect(server.handshakesInProgress == 2)
        let retried = try initial()
        server.receive(retried, from: client(1003), to: local, now: start)
        #expect(server.statistics.retriesSent == 1)
        #expect(server.handshakesInProgress == 2)

        // The two silent handshakes time out: none in progress, a new client connects directly.
        let later = start + configuration.connection.handshakeTimeout + .seconds(1)
        server.handleTimeout(now: later)
        #expect(server.handshakesInProgress == 0)
        server.receive(try initial(), from: client(1004), to: local, now: later)
        #expect(server.handshakesInProgress == 1)
        #expect(server.statistics.retriesSent == 1)

        // The retried client's first Initial again (a retransmission that arrives late): a Retry.
        server.receive(retried, from: client(1003), to: local, now: later)
        #expect(server.statistics.retriesSent == 2)
        #expect(server.handshakesInProgress == 1)
    }

    /// The memory of retried DCIDs is bounded: the oldest are forgotten first.
    @Test func retriedDestinationsAreBounded() {
        var retried = RetriedDestinations()
        func id(_ n: Int) -> ConnectionID { withUnsafeBytes(of: UInt64(n)) { ConnectionID($0) } }
        for n in 0..<(RetriedDestinations.capacity + 10) { retried.insert(id(n)) }
        #expect(retried.count == RetriedDestinations.capacity)
        #expect(!retried.contains(id(0)) && !retried.contains(id(9)))
        #expect(retried.contains(id(10)) && retried.contains(id(RetriedDestinations.capacity + 9)))
        retried.insert(id(RetriedDestinations.capacity + 9))
        #expect(retried.count == RetriedDestinations.capacity)
    }
}
