import QuicEngine
import QuicSimulation
import TestSupport
import Testing

/// Session tickets never widen what the server's current client-certificate policy admits
/// (issue 23 item 3): a resumed handshake shows no certificate, so a ticket issued under one
/// client CA must not resume under another, after a restart or a reconfiguration alike; under
/// the same CA it still resumes.
@Suite("Engine in memory: session tickets and the client-certificate policy")
struct InMemoryTicketPolicyTests {
    private static func server(clientCA: String?, requestCertificates: Bool = false) -> QuicServerConfiguration {
        var configuration = EngineFixtures.serverConfiguration()
        configuration.connection.tls.trustedCAPath = clientCA
        configuration.connection.tls.requestClientCertificate = requestCertificates
        return configuration
    }

    private static func client(withCertificate: Bool, ticket: [UInt8]? = nil) -> QuicConfiguration {
        var configuration = EngineFixtures.clientConfiguration()
        if withCertificate {
            configuration.tls.certificateChainPath = TestCertificates.clientCertificate
            configuration.tls.privateKeyPath = TestCertificates.clientKey
        }
        configuration.tls.resumptionTicket = ticket
        return configuration
    }

    /// A client with `ca`'s certificate gets a ticket from a server that requires certificates
    /// signed by `ca` (or, without one, only requests them).
    private static func ticketedPair(clientCA: String?, requestCertificates: Bool = false, withCertificate: Bool = true) throws
        -> (EnginePair, [UInt8])
    {
        let pair = try EnginePair(serverConfiguration: server(clientCA: clientCA, requestCertificates: requestCertificates),
                                  clientConfiguration: client(withCertificate: withCertificate))
        #expect(pair.handshake())
        #expect(pair.run(for: .seconds(2), until: { pair.connection.sessionTicket != nil }))
        return (pair, try #require(pair.connection.sessionTicket))
    }

    private struct Attempt {
        var resumed = false
        var established = false
        var closeReason: QuicCloseReason?
    }

    /// A new connection offering `ticket` to whatever endpoint is at the server's address now.
    private static func attempt(_ pair: EnginePair, port: UInt16, ticket: [UInt8], withCertificate: Bool) throws -> Attempt {
        let local = SocketAddress(host: "127.0.0.3", port: port)!
        pair.network.attach(pair.client, at: local)
        let connection = try pair.client.connect(to: EngineFixtures.serverAddress, from: local,
                                                 configuration: client(withCertificate: withCertificate, ticket: ticket),
                                                 now: pair.network.now)
        // A client's handshake completes a flight before the server's: wait for the server's verdict too.
        pair.run(for: .seconds(5), until: { connection.closeReason != nil })
        return Attempt(resumed: connection.resumedSession, established: connection.isEstablished, closeReason: connection.closeReason)
    }

    /// Restarted (the same key) with another client CA: the ticket does not resume, with or
    /// without the certificate it was issued for, and neither handshake is admitted.
    @Test(arguments: [true, false])
    func restartWithAnotherCARefusesTheTicket(withCertificate: Bool) throws {
        let (pair, ticket) = try Self.ticketedPair(clientCA: TestCertificates.ca)
        let restarted = try QuicEndpoint(server: Self.server(clientCA: TestCertificates.otherCA), now: pair.network.now)
        pair.network.attach(restarted, at: EngineFixtures.serverAddress)
        let attempt = try Self.attempt(pair, port: 40001, ticket: ticket, withCertificate: withCertificate)
        #expect(!attempt.resumed && !attempt.established, "\(attempt)")
        #expect(restarted.statistics.handshakesResumed == 0 && restarted.statistics.handshakesFull == 0)
    }

    /// Reconfigured to another client CA (chat-server's SIGHUP): the same.
    @Test(arguments: [true, false])
    func reconfigurationWithAnotherCARefusesTheTicket(withCertificate: Bool) throws {
        let (pair, ticket) = try Self.ticketedPair(clientCA: TestCertificates.ca)
        try pair.server.reconfigure(server: Self.server(clientCA: TestCertificates.otherCA))
        let attempt = try Self.attempt(pair, port: 40002, ticket: ticket, withCertificate: withCertificate)
        #expect(!attempt.resumed && !attempt.established, "\(attempt)")
        #expect(pair.server.statistics.handshakesResumed == 0)
    }

    /// A ticket of a server that only requested certificates (this client sent none) does not
    /// resume once the server requires them.
    @Test func requestedThenRequiredRefusesTheTicket() throws {
        let (pair, ticket) = try Self.ticketedPair(clientCA: nil, requestCertificates: true, withCertificate: false)
        try pair.server.reconfigure(server: Self.server(clientCA: TestCertificates.ca))
        let attempt = try Self.attempt(pair, port: 40003, ticket: ticket, withCertificate: false)
        #expect(!attempt.resumed && !attempt.established, "\(attempt)")
        #expect(pair.server.statistics.handshakesResumed == 0)
    }

    /// Restarted or reconfigured with the same CA, the ticket resumes as before.
    @Test(arguments: [true, false])
    func theSameCAStillResumes(restart: Bool) throws {
        let (pair, ticket) = try Self.ticketedPair(clientCA: TestCertificates.ca)
        var server = pair.server
        if restart {
            server = try QuicEndpoint(server: Self.server(clientCA: TestCertificates.ca), now: pair.network.now)
            pair.network.attach(server, at: EngineFixtures.serverAddress)
        } else {
            try pair.server.reconfigure(server: Self.server(clientCA: TestCertificates.ca))
        }
        let local = SocketAddress(host: "127.0.0.3", port: 40004)!
        pair.network.attach(pair.client, at: local)
        let resumed = try pair.client.connect(to: EngineFixtures.serverAddress, from: local,
                                              configuration: Self.client(withCertificate: true, ticket: ticket), now: pair.network.now)
        #expect(pair.run(for: .seconds(5), until: { resumed.isEstablished && server.statistics.handshakesResumed == 1 }))
        #expect(resumed.resumedSession)
    }
}
