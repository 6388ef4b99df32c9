import Foundation
import TestSupport
import Testing

extension DailyDriverTests.WeechatHabits {
    /// Input history across restarts (Up after a restart brings back what was sent before, a
    /// line break inside included) and a draft per buffer (what was typed in one buffer waits
    /// there while another is shown). Line mode reads whole lines: its history is the shell's.
    @Test func inputHistoryAcrossRestartsAndADraftPerBuffer() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let home = try ClientHome()
        defer { home.remove() }
        try home.writeConfiguration("rooms = lobby, dev\n")
        let dave = try home.lineClient(port: server.port, nick: "dave")
        defer { dave.terminate() }
        #expect(dave.waitForEvent("#lobby * dave joined"))
        let bob = try DailyDriverTests.fullScreen(home, port: server.port, nick: "bob")
        #expect(bob.waitFor { $0.joined().contains("bob joined") && ($0.first ?? "").contains("2:dev") }, "\(bob.dump)")
        try DailyDriverTests.enter(bob, "remember this line")
        #expect(dave.waitForEvent("#lobby <bob> remember this line"))
        try bob.paste("two\nlines", bracketed: true)
        try bob.press("Enter")
        #expect(dave.waitForLine(timeout: 10) { untimed($0) == "#lobby <bob> two" } != nil, "\(dave.outputLines)")

        // A draft in the lobby, another in dev; each comes back with its buffer.
        try bob.type("lobby draft")
        try bob.press("M-2")
        #expect(bob.waitFor { $0.last(where: { !$0.isEmpty }) == "[dev] " || $0.last(where: { !$0.isEmpty }) == "[dev]" }, "\(bob.dump)")
        try bob.type("dev draft")
        try bob.press("M-1")
        #expect(bob.waitFor { $0.last(where: { !$0.isEmpty })?.hasPrefix("[lobby] lobby draft") == true }, "\(bob.dump)")
        try bob.press("M-2")
        #expect(bob.waitFor { $0.last(where: { !$0.isEmpty })?.hasPrefix("[dev] dev draft") == true }, "\(bob.dump)")
        try bob.press("C-u")
        try DailyDriverTests.enter(bob, "/quit")
        #expect(bob.waitFor { $0.joined().contains("EXITED") }, "\(bob.dump)")

        let again = try DailyDriverTests.fullScreen(home, port: server.port, nick: "bob")
        #expect(again.waitFor { $0.joined().contains("bob joined") }, "\(again.dump)")
        try again.press("Up")
        try again.press("Up")
        #expect(again.waitFor { $0.last(where: { !$0.isEmpty })?.hasPrefix("[lobby] two↵lines") == true }, "\(again.dump)")
        try again.press("Up")
        #expect(again.waitFor { $0.last(where: { !$0.isEmpty })?.hasPrefix("[lobby] remember this line") == true }, "\(again.dump)")
        try again.press("Enter")
        #expect(dave.waitForLine(timeout: 10, skipping: 1) { untimed($0) == "#lobby <bob> remember this line" } != nil, "\(dave.outputLines)")
    }
}
