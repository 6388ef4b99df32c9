import Foundation
import TestSupport
import Testing

extension DailyDriverTests {
    @Suite("typing indicators") struct Typing {
        /// Typing a command (`/msg bob ...`) tells the room nothing; typing a message does.
        @Test func commandsSendNoTypingIndicator() throws {
            let server = try ChatServerProcess()
            defer { server.stop() }
            let home = try ClientHome()
            defer { home.remove() }
            let bob = try home.lineClient(port: server.port, nick: "bob", ["--json"])
            #expect(bob.waitForLine(timeout: 10) { $0.contains("\"joined\"") && $0.contains("\"bob\"") } != nil)
            let alice = try DailyDriverTests.fullScreen(home, port: server.port, nick: "alice")
            #expect(bob.waitForLine(timeout: 10) { $0.contains("\"joined\"") && $0.contains("\"alice\"") } != nil)

            let isTyping: (String) -> Bool = { $0.contains("\"typing\"") && $0.contains("\"alice\"") && $0.contains("\"start\"") }
            try alice.type("/msg bob a private word")
            #expect(alice.waitFor { $0.last(where: { !$0.isEmpty })?.contains("private word") == true })
            try alice.press("Enter")
            #expect(bob.waitForLine(timeout: 10) { $0.contains("\"dm\"") && $0.contains("a private word") } != nil)
            try alice.type("now a message")
            #expect(bob.waitForLine(timeout: 10, where: isTyping) != nil)
            let lines = bob.outputLines
            let firstTyping = lines.firstIndex(where: isTyping) ?? -1
            let privateMessage = lines.firstIndex { $0.contains("a private word") } ?? Int.max
            #expect(firstTyping > privateMessage, "\(lines)")
            bob.closeInput()
            _ = bob.finish(timeout: 10)
        }

        /// Typing in a private conversation shows on the other side's conversation with us, and
        /// nowhere else: not in a room (line mode's --json sees no typing of alice's).
        @Test func typingInAPrivateConversation() throws {
            let server = try ChatServerProcess()
            defer { server.stop() }
            let home = try ClientHome()
            defer { home.remove() }
            let carol = try home.lineClient(port: server.port, nick: "carol", ["--json"])
            defer { carol.terminate() }
            #expect(carol.waitForLine(timeout: 10) { $0.contains("\"joined\"") && $0.contains("\"carol\"") } != nil)
            let alice = try DailyDriverTests.fullScreen(home, port: server.port, nick: "alice")
            #expect(alice.waitFor { $0.joined().contains("alice joined") }, "\(alice.dump)")
            let bob = try DailyDriverTests.fullScreen(home, port: server.port, nick: "bob")
            #expect(bob.waitFor { $0.joined().contains("bob joined") }, "\(bob.dump)")
            try DailyDriverTests.enter(bob, "/query alice")
            #expect(bob.waitFor { $0.last(where: { !$0.isEmpty })?.hasPrefix("[@alice]") == true }, "\(bob.dump)")
            try DailyDriverTests.enter(alice, "/query bob")
            #expect(alice.waitFor { $0.last(where: { !$0.isEmpty })?.hasPrefix("[@bob]") == true }, "\(alice.dump)")
            try alice.type("a secret in the making")
            #expect(bob.waitFor { $0.joined().contains("alice is typing") }, "\(bob.dump)")
            try alice.press("Enter")
            #expect(bob.waitFor { $0.joined().contains("a secret in the making") && !$0.joined().contains("alice is typing") }, "\(bob.dump)")
            // Back in the lobby, bob sees no typing of alice's there.
            try bob.press("M-1")
            try alice.type("more")
            carol.write("a line from carol\n")
            #expect(bob.waitFor { $0.joined().contains("a line from carol") }, "\(bob.dump)")
            #expect(!bob.dump.contains("alice is typing"), "\(bob.dump)")
            #expect(!carol.outputLines.contains { $0.contains("\"typing\"") && $0.contains("alice") }, "\(carol.outputLines)")
        }
    }
}
