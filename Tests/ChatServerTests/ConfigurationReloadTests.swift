import ChatClientKit
import ChatProtocol
import Foundation
import QuicEngine
import TestSupport
import Testing

/// SIGHUP reloads the configuration file without dropping anyone: new limits reach connected
/// clients, a renewed certificate the next handshake, and a broken file changes nothing.
@Suite("chat-server configuration reload")
struct ConfigurationReloadTests {
    /// A flood limit lowered in the file applies at once to a client connected before the reload: of 10 messages, the 5 of the new burst pass.
    @Test func changedFloodLimitAppliesToConnectedClients() async throws {
        let server = try ConfiguredServer("flood-burst = 1000\nflood-rate = 1000\n")
        defer { server.stop() }
        let result = try await onDedicatedThread { () -> (before: Int, reload: String?, acks: Int, errors: [String?], bobSaw: Int) in
            let world = try ChatTestWorld(port: server.port)
            let alice = try world.connectAndJoin("alice")
            let bob = try world.connectAndJoin("bob")
            for number in 1...30 { alice.send(.msg(room: "lobby", text: "before \(number)", id: "B-\(number)")) }
            world.run { world.count(alice, type: "ack") == 30 }
            let before = world.count(alice, type: "ack")
            try server.rewrite("flood-burst = 5\nflood-rate = 0.01\n")
            let reload = server.reload()
            for number in 1...10 { alice.send(.msg(room: "lobby", text: "after \(number)", id: "A-\(number)")) }
            world.run { world.count(alice, type: "ack") + world.count(alice, type: "error") == 40 }
            world.settle(seconds: 0.3)
            return (before, reload, world.count(alice, type: "ack"), world.messages(alice, type: "error").map(\.code),
                    world.messages(bob, type: "msg").count)
        }
        #expect(result.before == 30)
        #expect(result.reload?.contains("configuration reloaded") == true, "\(result.reload ?? "no reload line")")
        #expect(result.reload?.contains("changed=flood-burst,flood-rate") == true, "\(result.reload ?? "")")
        #expect(result.acks == 35)
        #expect(result.errors == Array(repeating: "rate-limited", count: 5))
        #expect(result.bobSaw == 35)
    }

    /// A certificate renewed under the same paths (from another CA here, so clients can tell which is served) reaches the next handshake; a client connected before keeps chatting with one connected after.
    @Test func renewedCertificateServesTheNextHandshake() async throws {
        let server = try ConfiguredServer("")
        defer { server.stop() }
        let result = try await onDedicatedThread {
            () -> (reload: String?, oldTrustClosed: QuicCloseReason?, newTrustJoined: Bool, aliceHeard: Bool, daveHeard: Bool, aliceClosed: Bool) in
            let world = try ChatTestWorld(port: server.port)
            let alice = try world.connectAndJoin("alice")
            try server.renewCertificate(TestCertificates.renewedServerCertificate, key: TestCertificates.renewedServerKey)
            let reload = server.reload()
            // Trusting only the CA of the old certificate, the next client is refused it.
            let carol = try world.connect("carol")
            world.run { world.closes[carol.connection.id] != nil }
            let dave = try world.connect("dave") { $0.tls.trustedCAPath = TestCertificates.otherCA }
            world.run { world.joined(dave) && world.has(alice, type: "joined") { $0.sender == "dave" } }
            alice.send(.msg(room: "lobby", text: "still here", id: "old-1"))
            dave.send(.msg(room: "lobby", text: "new here", id: "new-1"))
            world.run {
                world.has(dave, type: "msg") { $0.text == "still here" } && world.has(alice, type: "msg") { $0.text == "new here" }
            }
            return (reload, world.closes[carol.connection.id], world.joined(dave), world.has(alice, type: "msg") { $0.text == "new here" },
                    world.has(dave, type: "msg") { $0.text == "still here" }, world.closes[alice.connection.id] != nil)
        }
        #expect(result.reload?.contains("configuration reloaded") == true, "\(result.reload ?? "no reload line")")
        #expect(result.oldTrustClosed.map { if case .tlsFailure = $0.kind { true } else { false } } == true,
                "\(String(describing: result.oldTrustClosed))")
        #expect(result.newTrustJoined)
        #expect(result.aliceHeard && result.daveHeard)
        #expect(!result.aliceClosed)
    }

    /// A file with a mistake, or naming a certificate that is missing, is logged with what is wrong and changes nothing: the name and certificate in force stay, and a later good file still applies.
    @Test func brokenFileKeepsTheRunningSettings() async throws {
        let server = try ConfiguredServer("name = Before\n")
        defer { server.stop() }
        try server.rewrite("name = After\nflood-burst = lots\n")
        let badValue = server.reload()
        try server.rewrite("name = After\ncolour = blue\n")
        let unknownKey = server.reload()
        let missingCertificate: String? = try {
            try (server.base.replacingOccurrences(of: "cert = ", with: "cert = /nonexistent") + "name = After\n")
                .write(toFile: server.file, atomically: true, encoding: .utf8)
            return server.reload()
        }()
        let kept = try await onDedicatedThread { () -> String? in
            let world = try ChatTestWorld(port: server.port)
            let alice = try world.connectAndJoin("alice")
            return world.messages(alice, type: "welcome").first?.text
        }
        try server.rewrite("name = After\n")
        let good = server.reload()
        let applied = try await onDedicatedThread { () -> String? in
            let world = try ChatTestWorld(port: server.port)
            let bob = try world.connectAndJoin("bob")
            return world.messages(bob, type: "welcome").first?.text
        }
        let metrics = try server.metrics()

        #expect(badValue?.contains("configuration reload failed") == true, "\(badValue ?? "no line")")
        #expect(badValue?.contains("chat-server.conf line 8: flood-burst must be a whole number") == true, "\(badValue ?? "")")
        #expect(unknownKey?.contains("line 8: unknown setting 'colour'") == true, "\(unknownKey ?? "no line")")
        #expect(missingCertificate?.contains("configuration reload failed") == true && missingCertificate?.contains("/nonexistent") == true,
                "\(missingCertificate ?? "no line")")
        #expect(kept == "Before")
        #expect(good?.contains("changed=name") == true, "\(good ?? "no line")")
        #expect(applied == "After")
        #expect(metrics[#"qchat_config_reloads_total{result="failure"}"#] == 3)
        #expect(metrics[#"qchat_config_reloads_total{result="success"}"#] == 1)
    }

    /// What only a restart can change (the port, the database) is named in a warning and kept; the server goes on serving where it was.
    @Test func restartOnlySettingsAreKept() async throws {
        let server = try ConfiguredServer("")
        defer { server.stop() }
        try server.rewrite("db = \(server.directory)/later.db\n")
        let reload = server.reload()
        let warning = server.process.waitForLine(timeout: 5) { $0.contains("configuration needs a restart") }
        let served = try await onDedicatedThread { () -> Bool in
            let world = try ChatTestWorld(port: server.port)
            let alice = try world.connectAndJoin("alice")
            return world.joined(alice)
        }
        #expect(reload?.contains("configuration reloaded") == true)
        #expect(warning?.contains("settings=db") == true, "\(warning ?? "no warning")")
        #expect(served)
        #expect(!FileManager.default.fileExists(atPath: server.directory + "/later.db"))
    }
}
