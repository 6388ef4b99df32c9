import ChatClientKit
import Foundation
import QuicEngine
import Testing
import TestSupport

/// A session ticket never lets in what the client CA now in force would refuse (issue 23 item
/// 3): a ticket issued under `--client-ca` A does not resume once the server runs with CA B,
/// after a restart or a reload, whether the client offers with it the certificate A signed or
/// none; under the same CA it still resumes.
@Suite("chat-server: session tickets and --client-ca", .serialized)
struct ClientCATicketTests {
    struct Attempt: Sendable, CustomStringConvertible {
        var joined = false
        var resumed = false
        var closed: QuicCloseReason?
        var description: String { "joined \(joined), resumed \(resumed), closed \(String(describing: closed))" }
    }

    private static func withCertificate(_ configuration: inout QuicConfiguration) {
        configuration.tls.certificateChainPath = TestCertificates.clientCertificate
        configuration.tls.privateKeyPath = TestCertificates.clientKey
    }

    /// Alice joins with her CA-signed certificate and keeps the server's ticket.
    private static func ticket(from port: UInt16) async throws -> [UInt8]? {
        try await onDedicatedThread { () -> [UInt8]? in
            let world = try ChatTestWorld(port: port)
            world.pool.resumesSessions = false
            let alice = try world.connect("alice") { Self.withCertificate(&$0) }
            _ = world.run { world.joined(alice) && alice.connection.sessionTicket != nil }
            return alice.connection.sessionTicket
        }
    }

    /// A new client offering `ticket`, with alice's certificate or none.
    private static func attempt(_ port: UInt16, ticket: [UInt8], withCertificate: Bool) async throws -> Attempt {
        try await onDedicatedThread { () -> Attempt in
            let world = try ChatTestWorld(port: port)
            world.pool.resumesSessions = false
            let session = try world.connect("mallory") { configuration in
                if withCertificate { Self.withCertificate(&configuration) }
                configuration.tls.resumptionTicket = ticket
            }
            _ = world.run { world.joined(session) || world.closes[session.connection.id] != nil }
            return Attempt(joined: world.joined(session), resumed: session.connection.resumedSession,
                           closed: world.closes[session.connection.id])
        }
    }

    /// Restarted with another client CA: neither the certificate A signed nor no certificate
    /// gets in with the ticket. Restarted with the same CA, the ticket resumes.
    @Test func restartWithAnotherCARefusesTicketsOfTheOld() async throws {
        let first = try ChatServerProcess(["--client-ca", TestCertificates.ca])
        let issued = try await Self.ticket(from: first.port)
        first.stop()
        let ticket = try #require(issued, "no session ticket")
        let other = try ChatServerProcess(["--client-ca", TestCertificates.otherCA])
        let withCertificate = try await Self.attempt(other.port, ticket: ticket, withCertificate: true)
        let without = try await Self.attempt(other.port, ticket: ticket, withCertificate: false)
        other.stop()
        for attempt in [withCertificate, without] {
            #expect(!attempt.joined && !attempt.resumed && attempt.closed != nil, "\(attempt)")
        }
        let same = try ChatServerProcess(["--client-ca", TestCertificates.ca])
        defer { same.stop() }
        let again = try await Self.attempt(same.port, ticket: ticket, withCertificate: true)
        #expect(again.joined && again.resumed, "\(again)")
    }

    /// Reloaded (SIGHUP) with another client CA in the file: the same refusals; reloaded back
    /// to the first CA, the ticket resumes again.
    @Test func reloadWithAnotherCARefusesTicketsOfTheOld() async throws {
        let server = try ConfiguredServer("client-ca = \(TestCertificates.ca)\n")
        defer { server.stop() }
        let ticket = try #require(try await Self.ticket(from: server.port), "no session ticket")
        try server.rewrite("client-ca = \(TestCertificates.otherCA)\n")
        let reload = server.reload()
        #expect(reload?.contains("configuration reloaded") == true, "\(reload ?? "no reload line")")
        let withCertificate = try await Self.attempt(server.port, ticket: ticket, withCertificate: true)
        let without = try await Self.attempt(server.port, ticket: ticket, withCertificate: false)
        for attempt in [withCertificate, without] {
            #expect(!attempt.joined && !attempt.resumed && attempt.closed != nil, "\(attempt)")
        }
        try server.rewrite("client-ca = \(TestCertificates.ca)\n")
        #expect(server.reload()?.contains("configuration reloaded") == true)
        let again = try await Self.attempt(server.port, ticket: ticket, withCertificate: true)
        #expect(again.joined && again.resumed, "\(again)")
    }
}
