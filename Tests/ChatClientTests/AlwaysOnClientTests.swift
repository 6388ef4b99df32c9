import Foundation
import TestSupport
import Testing

/// Version 1.2's commands in the real chat-client against today's server, which does not offer
/// them (issue 28, chat-client): the person is told clearly, nothing is sent (the server would
/// answer `unknown-type`), and the session goes on. What a 1.2 server makes of them is tested on
/// the cores (MessageReferencesTests, AlwaysOnSessionTests, AlwaysOnViewTests).
@Suite("always-on client") struct AlwaysOnClientTests {
    static let unsupportedEdits = "this server does not support edits (a version 1.2 feature); nothing was sent"

    /// Full screen: `/edit`, `/react` and `/reply` say the server does not support them;
    /// `/numbers` shows each message's number; `/search` searches the lines shown.
    @Test func fullScreenAgainstAServerWithoutVersion12() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let home = try ClientHome()
        defer { home.remove() }
        let bob = try DailyDriverTests.fullScreen(home, port: server.port, nick: "bob")
        #expect(bob.waitFor { $0.joined().contains("bob joined") }, "\(bob.dump)")
        let carol = try home.lineClient(port: server.port, nick: "carol")
        defer { carol.terminate() }
        #expect(carol.waitForEvent("#lobby * carol joined"))
        carol.write("deploy on friday?\n")
        #expect(bob.waitFor { $0.joined().contains("<carol> deploy on friday?") }, "\(bob.dump)")
        try DailyDriverTests.enter(bob, "/edit fixed it")
        #expect(bob.waitFor { $0.joined().contains("does not support edits") }, "\(bob.dump)")
        try DailyDriverTests.enter(bob, "/react 👍")
        #expect(bob.waitFor { $0.joined().contains("does not support reactions") }, "\(bob.dump)")
        try DailyDriverTests.enter(bob, "/numbers")
        #expect(bob.waitFor { screen in screen.contains { $0.range(of: #"\[\d+\] <carol> deploy on friday\?"#, options: .regularExpression) != nil } },
                "\(bob.dump)")
        // Still connected, nothing refused: a message after them goes through.
        try DailyDriverTests.enter(bob, "still here")
        #expect(carol.waitForEvent("#lobby <bob> still here"))
        #expect(!bob.dump.contains("unknown") && !bob.dump.contains("!!"), "\(bob.dump)")
        try DailyDriverTests.enter(bob, "/reply 1 yes")
        #expect(bob.waitFor { $0.joined().contains("does not support replies") }, "\(bob.dump)")
    }

    /// Line mode: the same sentences on standard error, status unchanged; the lines printed keep
    /// their 1.1 form (no numbers: the server offers no edits).
    @Test func lineModeAgainstAServerWithoutVersion12() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let home = try ClientHome()
        defer { home.remove() }
        let dave = try home.lineClient(port: server.port, nick: "dave")
        defer { dave.terminate() }
        #expect(dave.waitForEvent("#lobby * dave joined"))
        dave.write("first\n")
        #expect(dave.waitForEvent("#lobby <dave> first"))
        dave.write("/edit fixed\n")
        #expect(dave.waitForLine(timeout: 10) { $0 == "chat-client: " + Self.unsupportedEdits } != nil, "\(dave.errorOutput)")
        dave.write("/redact\n")
        #expect(dave.waitForLine(timeout: 10) { $0.hasPrefix("chat-client: this server does not support redactions") } != nil)
        dave.write("/search friday\n")
        #expect(dave.waitForLine(timeout: 10) { $0 == "chat-client: this server does not search (a version 1.2 feature); /lastlog WORD finds it in what was printed" }
            != nil, "\(dave.errorOutput)")
        dave.write("second\n")
        #expect(dave.waitForEvent("#lobby <dave> second"))
        #expect(!dave.outputLines.contains { $0.contains("unknown") || $0.contains("[") }, "\(dave.outputLines)")
    }
}
