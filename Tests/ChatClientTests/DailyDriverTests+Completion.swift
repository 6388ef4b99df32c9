import Foundation
import TestSupport
import Testing

extension DailyDriverTests.WeechatHabits {
    /// Tab completes room names (`/join` after `/rooms` listed them, `#room` in a message) and
    /// paths (`/send`, a name with a space escaped as /send reads it). Line mode reads whole
    /// lines: its completion is the shell's.
    @Test func tabCompletesRoomsAndPaths() throws {
        let folder = try LineModeFileTests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("notes".utf8).write(to: URL(fileURLWithPath: folder + "/my notes.txt"))
        let server = try ChatServerProcess()
        defer { server.stop() }
        let home = try ClientHome()
        defer { home.remove() }
        let dave = try home.lineClient(port: server.port, nick: "dave", ["--room", "designers"])
        defer { dave.terminate() }
        #expect(dave.waitForEvent("#designers * dave joined"))
        let bob = try DailyDriverTests.fullScreen(home, port: server.port, nick: "bob")
        #expect(bob.waitFor { $0.joined().contains("bob joined") }, "\(bob.dump)")
        try DailyDriverTests.enter(bob, "/rooms")
        #expect(bob.waitFor { $0.joined().contains("designers") }, "\(bob.dump)")
        try bob.type("/join desi")
        try bob.press("Tab")
        #expect(bob.waitFor { $0.last(where: { !$0.isEmpty })?.hasSuffix("/join designers") == true }, "\(bob.dump)")
        try bob.press("Enter")
        #expect(dave.waitForEvent("#designers * bob joined"), "\(dave.outputLines)")

        try bob.type("/send \(folder)/my")
        try bob.press("Tab")
        #expect(bob.waitFor { $0.joined().contains("my\\ notes.txt") }, "\(bob.dump)")
        try bob.press("Enter")
        #expect(dave.waitForLine(timeout: 20) { $0.contains("bob shared my notes.txt") } != nil, "\(dave.outputLines) \(bob.dump)")

        try bob.type("see #lob")
        try bob.press("Tab")
        try bob.press("Enter")
        #expect(dave.waitForLine(timeout: 10) { untimed($0).hasPrefix("#designers <bob> see #lobby") } != nil, "\(dave.outputLines)")
    }
}
