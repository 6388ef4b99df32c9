import Foundation
import QuicEngine
import Testing
import TestSupport

/// Trust on first use in the engine: the client's policy is set up front, GnuTLS's callback
/// applies it during the handshake and records what it found (real UDP on 127.0.0.1, real
/// certificates).
@Suite("Server certificate policy", .serialized)
struct ServerCertificatePolicyTests {
    struct Outcome: Sendable {
        var established = false
        var reason: QuicCloseReason?
        var verdict: ServerCertificateVerdict?
        var fingerprint: String?
        /// Whether the server saw a client certificate (nil: its handshake never completed).
        var serverSawClientCertificate: Bool?
    }

    private func connect(policy: ServerCertificatePolicy, ca: String? = nil, clientCertificate: Bool = false,
                         server: QuicServerConfiguration = EngineFixtures.serverConfiguration()) async throws -> Outcome {
        var asking = server
        // The server asks every client for a certificate, as chat-server does.
        asking.connection.tls.requestClientCertificate = true
        let server = asking
        return try await onDedicatedThread {
            let harness = try LoopbackHarness(server: server)
            var outcome = Outcome()
            harness.onServerEvent = { connection, event in
                if case .handshakeCompleted = event { outcome.serverSawClientCertificate = connection.peerCertificateFingerprint != nil }
            }
            harness.onClientEvent = { [unowned harness] connection, event in
                switch event {
                case .handshakeCompleted:
                    outcome.established = true
                    outcome.verdict = connection.serverCertificateVerdict
                    outcome.fingerprint = connection.peerCertificateFingerprint
                    harness.loop.schedule(at: .now() + .milliseconds(200)) { harness.stop() }
                case .closed(let why):
                    outcome.reason = why
                    outcome.verdict = connection.serverCertificateVerdict
                    outcome.fingerprint = connection.peerCertificateFingerprint
                    harness.loop.schedule(at: .now() + .milliseconds(200)) { harness.stop() }
                default: break
                }
            }
            var tls = QuicTLSConfiguration(trustedCAPath: ca, serverName: "localhost", alpn: [EngineFixtures.alpn])
            tls.serverCertificatePolicy = policy
            if clientCertificate {
                tls.certificateChainPath = TestCertificates.clientCertificate
                tls.privateKeyPath = TestCertificates.clientKey
            }
            _ = try harness.connect(QuicConfiguration(tls: tls))
            harness.run(seconds: 10)
            return outcome
        }
    }

    private var serverFingerprint: String {
        get throws { try TLSIdentity.fingerprint(ofPEM: String(contentsOfFile: TestCertificates.serverCertificate, encoding: .utf8)) }
    }

    /// No CA and no pin: the handshake ends before the client's certificate or any data is sent,
    /// and the fingerprint of the certificate the server presented is recorded for the question.
    @Test func firstUseRecordsAnUnknownCertificate() async throws {
        let result = try await connect(policy: .firstUse, clientCertificate: true,
                                       server: EngineFixtures.serverConfiguration())
        #expect(!result.established)
        #expect(result.verdict == .unknown(presented: try serverFingerprint))
        #expect(result.fingerprint == (try serverFingerprint))
        #expect(result.reason.map { if case .tlsFailure = $0.kind { true } else { false } } == true)
        #expect(result.reason?.reason.contains("not known (trust on first use)") == true, "\(String(describing: result.reason))")
        #expect(result.serverSawClientCertificate != true)
    }

    /// First use with a CA that signs the server: accepted as CA-signed, no question needed.
    @Test func firstUseAcceptsACASignedServer() async throws {
        let result = try await connect(policy: .firstUse, ca: TestCertificates.ca)
        #expect(result.established)
        #expect(result.verdict == .signedByCA)
    }

    /// First use with a CA that does not sign the server: the certificate is unknown (the
    /// person is asked), not an error of the CA.
    @Test func firstUseWithAnotherCAIsUnknown() async throws {
        let result = try await connect(policy: .firstUse, ca: TestCertificates.otherCA)
        #expect(!result.established)
        #expect(result.verdict == .unknown(presented: try serverFingerprint))
    }

    /// The pinned certificate is accepted; the client's own certificate then goes out.
    @Test func pinMatches() async throws {
        let result = try await connect(policy: .pinned(try serverFingerprint), clientCertificate: true)
        #expect(result.established)
        #expect(result.verdict == .pinned)
        #expect(result.serverSawClientCertificate == true)
    }

    /// Another certificate than the pinned one ends the handshake, naming both.
    @Test func changedCertificateIsRefused() async throws {
        let pin = String(repeating: "ab", count: 32)
        let result = try await connect(policy: .pinned(pin))
        #expect(!result.established)
        #expect(result.verdict == .changed(pinned: pin, presented: try serverFingerprint))
        #expect(result.reason?.reason.contains("not the one pinned") == true)
    }

    /// A pin is not bypassed by a CA that signs the server: the pin alone decides.
    @Test func pinIsNotBypassedByACA() async throws {
        let pin = String(repeating: "cd", count: 32)
        let result = try await connect(policy: .pinned(pin), ca: TestCertificates.ca)
        #expect(!result.established)
        #expect(result.verdict == .changed(pinned: pin, presented: try serverFingerprint))
    }

    /// A server's self-signed identity (`chat-server --self-signed`): made once with mode 0600,
    /// the same on the second call, and pinned by its fingerprint.
    @Test func selfSignedServerIdentity() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-selfsigned-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/state/self-signed.pem"
        let first = try TLSIdentity.ensureFile(at: path, commonName: "qchat", purpose: .server, requirePrivate: true)
        let second = try TLSIdentity.ensureFile(at: path, commonName: "qchat", purpose: .server, requirePrivate: true)
        #expect(first == second)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        var server = EngineFixtures.serverConfiguration()
        server.connection.tls.certificateChainPath = path
        server.connection.tls.privateKeyPath = path
        let result = try await connect(policy: .pinned(first), server: server)
        #expect(result.established)
        #expect(result.verdict == .pinned)
        chmod(path, 0o644)
        #expect(throws: QuicError.self) { try TLSIdentity.ensureFile(at: path, commonName: "qchat", purpose: .server, requirePrivate: true) }
    }
}
