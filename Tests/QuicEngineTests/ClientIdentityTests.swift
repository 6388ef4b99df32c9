import Foundation
import QuicEngine
import Testing
import TestSupport

/// Client certificates as identity (issue 13): a server that requests a certificate in every
/// handshake takes a self-signed one and reports its fingerprint; with a client CA it still
/// requires a CA-signed one.
@Suite("Client certificates as identity", .serialized)
struct ClientIdentityTests {
    struct Outcome: Sendable {
        var established = false
        var reason: QuicCloseReason?
        /// What the server saw: the fingerprint, "none" without a certificate, nil before its handshake completed.
        var serverFingerprint: String?
    }

    /// A fresh self-signed identity in a temporary file, and its fingerprint.
    static func identityFile() throws -> (path: String, fingerprint: String) {
        let pem = try TLSIdentity.makeSelfSigned(commonName: "tester")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-identity-\(UUID().uuidString).pem").path
        try pem.write(toFile: path, atomically: true, encoding: .utf8)
        return (path, try TLSIdentity.fingerprint(ofPEM: pem))
    }

    private func handshake(server: QuicServerConfiguration, identity: String?) async throws -> Outcome {
        try await onDedicatedThread {
            let harness = try LoopbackHarness(server: server)
            var outcome = Outcome()
            harness.onServerEvent = { connection, event in
                if case .handshakeCompleted = event { outcome.serverFingerprint = connection.peerCertificateFingerprint ?? "none" }
            }
            harness.onClientEvent = { [unowned harness] _, event in
                switch event {
                case .handshakeCompleted:
                    outcome.established = true
                    harness.loop.schedule(at: .now() + .milliseconds(200)) { harness.stop() }
                case .closed(let why):
                    outcome.reason = why
                    harness.stop()
                default: break
                }
            }
            var client = EngineFixtures.clientConfiguration()
            client.tls.certificateChainPath = identity
            client.tls.privateKeyPath = identity
            _ = try harness.connect(client)
            harness.run(seconds: 10)
            return outcome
        }
    }

    private static func requestingServer() -> QuicServerConfiguration {
        var server = EngineFixtures.serverConfiguration()
        server.connection.tls.requestClientCertificate = true
        return server
    }

    /// A self-signed identity made by the engine is accepted, and the server sees exactly its SHA-256 fingerprint.
    @Test func selfSignedIdentityIsAcceptedWithItsFingerprint() async throws {
        let identity = try Self.identityFile()
        defer { try? FileManager.default.removeItem(atPath: identity.path) }
        let outcome = try await handshake(server: Self.requestingServer(), identity: identity.path)
        #expect(outcome.established)
        #expect(outcome.serverFingerprint == identity.fingerprint)
        #expect(identity.fingerprint.count == 64)
        #expect(identity.fingerprint.allSatisfy { $0.isHexDigit && !$0.isUppercase })
    }

    /// A client without a certificate still connects to a requesting server, which sees none.
    @Test func clientWithoutCertificateConnectsAnonymously() async throws {
        let outcome = try await handshake(server: Self.requestingServer(), identity: nil)
        #expect(outcome.established)
        #expect(outcome.serverFingerprint == "none")
    }

    /// A server that does not request certificates sees none, even from a client that has one.
    @Test func serverThatDoesNotRequestSeesNoCertificate() async throws {
        let identity = try Self.identityFile()
        defer { try? FileManager.default.removeItem(atPath: identity.path) }
        let outcome = try await handshake(server: EngineFixtures.serverConfiguration(), identity: identity.path)
        #expect(outcome.established)
        #expect(outcome.serverFingerprint == "none")
    }

    /// With a client CA the self-signed identity is not enough: the handshake fails.
    @Test func clientCARefusesSelfSignedIdentity() async throws {
        let identity = try Self.identityFile()
        defer { try? FileManager.default.removeItem(atPath: identity.path) }
        var server = EngineFixtures.serverConfiguration(requireClientCertificates: true)
        server.connection.tls.requestClientCertificate = true
        let outcome = try await handshake(server: server, identity: identity.path)
        #expect(outcome.reason != nil)
        #expect(outcome.serverFingerprint == nil)
    }

    /// With a client CA a certificate it signed is accepted, and its fingerprint is reported too.
    @Test func clientCAAcceptsItsCertificateWithFingerprint() async throws {
        var configured = EngineFixtures.serverConfiguration(requireClientCertificates: true)
        configured.connection.tls.requestClientCertificate = true
        let server = configured
        let outcome = try await onDedicatedThread { () throws -> Outcome in
            let harness = try LoopbackHarness(server: server)
            var outcome = Outcome()
            harness.onServerEvent = { connection, event in
                if case .handshakeCompleted = event { outcome.serverFingerprint = connection.peerCertificateFingerprint ?? "none" }
            }
            harness.onClientEvent = { [unowned harness] _, event in
                if case .handshakeCompleted = event {
                    outcome.established = true
                    harness.loop.schedule(at: .now() + .milliseconds(200)) { harness.stop() }
                }
            }
            var client = EngineFixtures.clientConfiguration()
            client.tls.certificateChainPath = TestCertificates.clientCertificate
            client.tls.privateKeyPath = TestCertificates.clientKey
            _ = try harness.connect(client)
            harness.run(seconds: 10)
            return outcome
        }
        let expected = try TLSIdentity.fingerprint(ofPEM: String(contentsOfFile: TestCertificates.clientCertificate, encoding: .utf8))
        #expect(outcome.established)
        #expect(outcome.serverFingerprint == expected)
    }

    /// A session resumed from a ticket keeps the client's certificate: the server reports the same fingerprint (RFC 8446
    /// section 2.2), which is why a client must resume only sessions made with its own identity.
    @Test func resumedSessionKeepsTheFingerprint() async throws {
        let identity = try Self.identityFile()
        defer { try? FileManager.default.removeItem(atPath: identity.path) }
        let server = Self.requestingServer()
        let path = identity.path
        let seen = try await onDedicatedThread { () throws -> [String] in
            let harness = try LoopbackHarness(server: server)
            var fingerprints: [String] = []
            var resumed: [Bool] = []
            harness.onServerEvent = { connection, event in
                if case .handshakeCompleted = event {
                    fingerprints.append(connection.peerCertificateFingerprint ?? "none")
                    resumed.append(connection.resumedSession)
                }
            }
            var ticket: [UInt8]?
            harness.onClientEvent = { [unowned harness] connection, event in
                if case .handshakeCompleted = event {
                    harness.loop.schedule(at: .now() + .milliseconds(200)) {
                        ticket = connection.sessionTicket
                        harness.stop()
                    }
                }
            }
            var client = EngineFixtures.clientConfiguration()
            client.tls.certificateChainPath = path
            client.tls.privateKeyPath = path
            _ = try harness.connect(client)
            harness.run(seconds: 10)
            client.tls.resumptionTicket = ticket
            _ = try harness.connect(client)
            harness.run(seconds: 10)
            return zip(fingerprints, resumed).map { "\($0.0) \($0.1)" }
        }
        #expect(seen == ["\(identity.fingerprint) false", "\(identity.fingerprint) true"])
    }

    /// Two identities made one after the other differ (fresh keys, fresh serials).
    @Test func eachIdentityIsNew() throws {
        let first = try TLSIdentity.makeSelfSigned(commonName: "a")
        let second = try TLSIdentity.makeSelfSigned(commonName: "a")
        #expect(try TLSIdentity.fingerprint(ofPEM: first) != TLSIdentity.fingerprint(ofPEM: second))
        #expect(first.contains("BEGIN PRIVATE KEY") || first.contains("BEGIN EC PRIVATE KEY"))
        #expect(first.contains("BEGIN CERTIFICATE"))
    }
}
