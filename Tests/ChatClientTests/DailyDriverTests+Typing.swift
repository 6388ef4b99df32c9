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
    }
}
