import Foundation
import TestSupport
import Testing

/// Issue 13 in chat-client: the full-screen UI under tmux (a password prompt that does not echo,
/// the topic line, operator and logged-in marks, kicks and modes in the room) and line mode (the
/// password on the next line, the new events printed, --json). Each person has a home of their
/// own, so each has an identity of its own.
@Suite("chat-client accounts and moderation", .serialized)
struct AccountsClientTests {
    static let columns = 100, rows = 30

    static func fullScreen(_ home: ClientHome, port: UInt16, nick: String, _ extra: [String] = []) throws -> TmuxSession {
        try TmuxSession(command: home.fullScreenCommand(port: port, nick: nick, extra), columns: columns, rows: rows)
    }

    /// The member pane's entries with their marks (`@`, `+`, `~` or a blank), as drawn.
    static func markedMembers(_ screen: [String]) -> [String] {
        let memberWidth = min(24, max(12, columns / 5))
        let start = columns - memberWidth
        let column: (String) -> String = { row in
            let characters = Array(row)
            return characters.count > start ? String(characters[start...]) : ""
        }
        guard let header = screen.firstIndex(where: { column($0).hasPrefix(" Members (") }) else { return [] }
        var entries: [String] = []
        for row in screen[(header + 1)...] {
            var entry = column(row)
            while entry.last == " " { entry.removeLast() }
            // The end of the list, or the `+N more` line.
            guard !entry.isEmpty, !entry.hasPrefix(" +") else { break }
            entries.append(entry)
        }
        return entries
    }

    /// /register asks twice for the password without echoing it (never on screen, never in the input history), then the account
    /// is registered; the next start of the client (same identity) is logged in by the certificate alone.
    @Test func passwordPromptDoesNotEchoAndIdentityLogsIn() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let home = try ClientHome()
        defer { home.remove() }
        let secret = "hunter2-correct-horse"
        let alice = try Self.fullScreen(home, port: server.port, nick: "alice", ["--logs"])
        #expect(alice.waitFor { $0.joined().contains("alice joined") }, "\(alice.dump)")
        try DailyDriverTests.enter(alice, "/register")
        #expect(alice.waitFor { $0.last(where: { !$0.isEmpty })?.hasPrefix("password for the account alice") == true }, "\(alice.dump)")
        try alice.type(secret)
        #expect(alice.waitFor { $0.joined().contains("password for the account alice") }, "\(alice.dump)")
        #expect(!alice.dump.contains(secret) && !alice.dump.contains("*****"), "\(alice.dump)")
        try alice.press("Enter")
        #expect(alice.waitFor { $0.joined().contains("again, to confirm") }, "\(alice.dump)")
        try alice.type(secret)
        #expect(!alice.dump.contains(secret))
        try alice.press("Enter")
        #expect(alice.waitFor(timeout: 60) { $0.joined().contains("registered the account alice") }, "\(alice.dump)")
        // The input history holds the command, not the password.
        try alice.press("Up")
        #expect(alice.waitFor { $0.last(where: { !$0.isEmpty })?.contains("/register") == true }, "\(alice.dump)")
        #expect(!alice.dump.contains(secret))
        try alice.press("C-u")
        try alice.press("C-c")
        #expect(alice.waitFor { $0.joined().contains("EXITED") }, "\(alice.dump)")
        let state = (try? FileManager.default.subpathsOfDirectory(atPath: home.stateDirectory)) ?? []
        for file in state {
            let text = (try? String(contentsOfFile: home.stateDirectory + "/" + file, encoding: .utf8)) ?? ""
            #expect(!text.contains(secret), "\(file) holds the password")
        }
        // The identity was made on first start, private to its user.
        let identity = home.configDirectory + "/qchat/identity.pem"
        let mode = (try FileManager.default.attributesOfItem(atPath: identity)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)

        let again = try Self.fullScreen(home, port: server.port, nick: "alice")
        #expect(again.waitFor { $0.joined().contains("as alice, logged in as alice") }, "\(again.dump)")
    }

    /// The topic is shown above the room's messages; operators are marked @, logged-in users +, guests not; a kick is shown in the room.
    @Test func topicLineAndOperatorMarks() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let ownerHome = try ClientHome()
        defer { ownerHome.remove() }
        let memberHome = try ClientHome()
        defer { memberHome.remove() }
        let guestHome = try ClientHome()
        defer { guestHome.remove() }
        let member = try memberHome.lineClient(port: server.port, nick: "bob", ["--room", "dev"])
        member.write("/register\ncorrect-horse-bob\n")
        #expect(member.waitForEvent("* registered the account bob; you are logged in", timeout: 60))
        let guest = try guestHome.lineClient(port: server.port, nick: "carol", ["--room", "dev"])
        #expect(guest.waitForLine(timeout: 10) { $0.contains("carol joined") } != nil)

        let owner = try Self.fullScreen(ownerHome, port: server.port, nick: "alice", ["--room", "dev"])
        #expect(owner.waitFor { $0.joined().contains("alice joined") }, "\(owner.dump)")
        try DailyDriverTests.enter(owner, "/register")
        try owner.type("alice-password")
        try owner.press("Enter")
        try owner.type("alice-password")
        try owner.press("Enter")
        #expect(owner.waitFor(timeout: 60) { $0.joined().contains("registered the account alice") }, "\(owner.dump)")
        try DailyDriverTests.enter(owner, "/claim")
        #expect(owner.waitFor { $0.joined().contains("alice claimed the room") }, "\(owner.dump)")
        try DailyDriverTests.enter(owner, "/topic Friday release, no deploys")
        #expect(owner.waitFor { $0.count > 1 && $0[1].hasPrefix("Topic: Friday release, no deploys") }, "\(owner.dump)")
        // alice's own list: she is marked once the claim's operators arrive; bob logged in; carol a guest.
        // bob's `+` comes with his next message (the roster of a room alice joined before he logged in has none).
        member.write("hello from bob\n")
        #expect(owner.waitFor { Self.markedMembers($0) == ["@alice", "+bob", " carol"] }, "\(owner.dump)")
        #expect(guest.waitForEvent("#dev * alice set the topic: Friday release, no deploys"))
        try DailyDriverTests.enter(owner, "/mode +registered")
        #expect(owner.waitFor { $0.joined().contains("alice set mode +registered") }, "\(owner.dump)")
        try DailyDriverTests.enter(owner, "/kick carol not registered")
        #expect(owner.waitFor { $0.joined().contains("alice kicked carol (not registered)") }, "\(owner.dump)")
        #expect(owner.waitFor { Self.markedMembers($0) == ["@alice", "+bob"] }, "\(owner.dump)")
        #expect(guest.waitForEvent("#dev * carol was kicked by alice (not registered)"))
        guest.write("/join dev\n")
        // The server's words once, with what to do (issue 24, defect 12).
        #expect(guest.waitForLine(timeout: 10) { $0.contains("! account-required: room 'dev' takes logged-in users only: /register or /login") } != nil)
        // bob's list followed the kick too: the operator first, marked as the full-screen client marks (issue 24).
        member.write("/who\n")
        #expect(member.waitForLine(timeout: 10) { $0.hasSuffix("#dev members: @alice +bob") } != nil, "\(member.outputLines)")
        for client in [member, guest] {
            client.closeInput()
            _ = client.finish(timeout: 10)
        }
    }

    /// --identity FILE makes (and then reuses) the identity there, 0600; --no-identity makes none and presents none; both at once is a usage error.
    @Test func identityFlags() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let home = try ClientHome()
        defer { home.remove() }
        let chosen = home.path + "/keys/mine.pem"
        let first = try home.lineClient(port: server.port, nick: "alice", ["--identity", chosen])
        first.write("/register\nalice-password\n")
        #expect(first.waitForEvent("* registered the account alice; you are logged in", timeout: 60))
        first.closeInput()
        #expect(first.finish(timeout: 10).status == 0)
        let mode = (try FileManager.default.attributesOfItem(atPath: chosen)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
        #expect(!FileManager.default.fileExists(atPath: home.configDirectory + "/qchat/identity.pem"))
        // The same file logs in again; without any identity the nick is a guest's.
        let again = try home.lineClient(port: server.port, nick: "alice", ["--identity", chosen])
        #expect(again.waitForEvent("* connected to qchat as alice, logged in as alice"))
        again.closeInput()
        _ = again.finish(timeout: 10)
        let anonymous = try home.lineClient(port: server.port, nick: "alice", ["--no-identity"])
        #expect(anonymous.waitForEvent("* connected to qchat as alice_2"))
        anonymous.closeInput()
        _ = anonymous.finish(timeout: 10)
        #expect(!FileManager.default.fileExists(atPath: home.configDirectory + "/qchat/identity.pem"))
        let both = try home.lineClient(port: server.port, nick: "alice", ["--no-identity", "--identity", chosen])
        let refused = both.finish(timeout: 10)
        #expect(refused.status == 2)
        #expect(refused.errors.contains("--identity and --no-identity exclude each other"))
    }

    /// Line mode: /login reads the password from the next line and never prints it; --json carries the account answers and the
    /// moderation events; a wrong password is explained.
    @Test func lineModeLoginAndJSON() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let first = try ClientHome()
        defer { first.remove() }
        let other = try ClientHome()
        defer { other.remove() }
        let alice = try first.lineClient(port: server.port, nick: "alice")
        alice.write("/register\nalice-password\n")
        #expect(alice.waitForEvent("* registered the account alice; you are logged in", timeout: 60))
        alice.closeInput()
        #expect(alice.finish(timeout: 10).status == 0)

        // Another device (another identity): a guest alice_2 until it logs in with the password.
        let device = try other.lineClient(port: server.port, nick: "alice", ["--json"])
        #expect(device.waitForLine(timeout: 10) { $0.contains("\"type\":\"welcome\"") && $0.contains("\"sender\":\"alice_2\"") } != nil)
        device.write("/login alice\nwrong-password\n")
        #expect(device.waitForLine(timeout: 10) { $0.contains("\"code\":\"bad-login\"") } != nil)
        device.write("/login alice\nalice-password\n")
        #expect(device.waitForLine(timeout: 10) { $0.contains("\"type\":\"account\"") && $0.contains("\"text\":\"logged-in\"") } != nil)
        device.write("/topic set from the json client\n/rooms\n/whois alice\n")
        #expect(device.waitForLine(timeout: 10) { $0.contains("\"type\":\"topic\"") && $0.contains("set from the json client") } != nil)
        #expect(device.waitForLine(timeout: 10) { $0.contains("\"type\":\"rooms\"") && $0.contains("\"room\":\"lobby\"") } != nil)
        #expect(device.waitForLine(timeout: 10) { $0.contains("\"type\":\"whois\"") && $0.contains("\"account\":\"alice\"") } != nil)
        device.closeInput()
        let finished = device.finish(timeout: 10)
        #expect(finished.status == 0)
        #expect(!finished.output.contains("alice-password") && !finished.errors.contains("alice-password"))
        #expect(!finished.output.contains("wrong-password"))
    }

    /// Operators first in the member list (issue 24, habits), whatever their names: zoe, who
    /// claimed the room, heads bob's member pane and his /who, in full screen and in line mode.
    @Test func operatorsFirstInTheMemberList() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let zoeHome = try ClientHome(), bobHome = try ClientHome()
        defer {
            zoeHome.remove()
            bobHome.remove()
        }
        let zoe = try zoeHome.lineClient(port: server.port, nick: "zoe", ["--room", "dev"])
        defer { zoe.terminate() }
        zoe.write("/register\ncorrect-horse-zoe\n/claim\n")
        #expect(zoe.waitForLine(timeout: 10) { $0.contains("zoe claimed the room") } != nil, "\(zoe.outputLines)")
        let bob = try Self.fullScreen(bobHome, port: server.port, nick: "bob", ["--room", "dev"])
        #expect(bob.waitFor { Self.markedMembers($0) == ["@zoe", " bob"] }, "\(bob.dump)")
        try DailyDriverTests.enter(bob, "/who")
        #expect(bob.waitFor { $0.joined().contains("2 here: @zoe bob") }, "\(bob.dump)")
        zoe.write("/who\n")
        #expect(zoe.waitForLine(timeout: 10) { $0.hasSuffix("#dev members: @zoe bob") } != nil, "\(zoe.outputLines)")
    }
}
