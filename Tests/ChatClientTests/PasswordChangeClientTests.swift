import Foundation
import Testing
import TestSupport

/// chat-client and chat-bot after issue 23's finding 12: a password change carries the current
/// password (the one the session logged in with), and `--json` prints no peer id.
@Suite("chat-client and chat-bot password changes, and --json without the peer id", .serialized)
struct PasswordChangeClientTests {
    /// Line mode: /register, then /password: the server asks for the current one, which the client
    /// sends by itself; the new password logs in afterwards. `--json` carries no `peer`.
    @Test func lineModeChangesThePassword() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let home = try ClientHome()
        defer { home.remove() }
        let alice = try home.lineClient(port: server.port, nick: "alice", ["--no-identity", "--json"])
        let welcome = alice.waitForLine(timeout: 10) { $0.contains("\"type\":\"welcome\"") }
        #expect(welcome != nil && welcome?.contains("\"peer\"") == false, "\(welcome ?? "")")
        alice.write("/register\nfirst-password\n")
        #expect(alice.waitForLine(timeout: 60) { $0.contains("\"text\":\"registered\"") } != nil)
        alice.write("/password\nsecond-password\n")
        #expect(alice.waitForLine(timeout: 60) { $0.contains("\"text\":\"password-changed\"") } != nil)
        alice.closeInput()
        #expect(alice.finish(timeout: 10).status == 0)
        let again = try home.lineClient(port: server.port, nick: "alice", ["--no-identity"])
        again.write("/login alice\nsecond-password\n")
        #expect(again.waitForEvent("* logged in as alice", timeout: 60))
        again.closeInput()
        _ = again.finish(timeout: 10)
    }

    /// chat-bot: `register` then `password NEW` changes it (the bot sends the current one itself).
    @Test func botChangesThePassword() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let bot = try runBotScript("""
            bot alice {
                register first-password
                expect account "registered" within 60s
                password second-password
                expect account "password-changed" within 60s
            }
            """, port: server.port)
        #expect(bot.finish(timeout: 150).status == 0)
        let home = try ClientHome()
        defer { home.remove() }
        let client = try home.lineClient(port: server.port, nick: "alice", ["--no-identity"])
        client.write("/login alice\nsecond-password\n")
        #expect(client.waitForEvent("* logged in as alice", timeout: 60))
        client.closeInput()
        _ = client.finish(timeout: 10)
    }
}
