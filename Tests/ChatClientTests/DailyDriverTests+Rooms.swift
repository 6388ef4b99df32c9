import Foundation
import TestSupport
import Testing

extension DailyDriverTests.WeechatHabits {
    /// Topics in `/rooms` (a room a line, with its topic) and `/msg #room TEXT` (to a room
    /// joined, whichever is shown; refused for a room not joined), in full screen and line mode.
    @Test func topicsInRoomsAndMessagesToARoom() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let home = try ClientHome()
        defer { home.remove() }
        let dave = try home.lineClient(port: server.port, nick: "dave", ["--room", "dev"])
        defer { dave.terminate() }
        #expect(dave.waitForEvent("#dev * dave joined"))
        dave.write("/topic builds, deploys and coffee\n")
        let bob = try DailyDriverTests.fullScreen(home, port: server.port, nick: "bob")
        #expect(bob.waitFor { $0.joined().contains("bob joined") }, "\(bob.dump)")
        try DailyDriverTests.enter(bob, "/rooms")
        #expect(bob.waitFor { screen in screen.contains { $0.contains("#dev (1): builds, deploys and coffee") } }, "\(bob.dump)")
        try DailyDriverTests.enter(bob, "/msg #dev from the lobby")
        #expect(bob.waitFor { $0.joined().contains("you are not in #dev: /join dev first") }, "\(bob.dump)")
        try DailyDriverTests.enter(bob, "/join dev")
        #expect(dave.waitForEvent("#dev * bob joined"))
        try bob.press("M-1")
        try DailyDriverTests.enter(bob, "/msg #dev from the lobby")
        #expect(dave.waitForEvent("#dev <bob> from the lobby"), "\(dave.outputLines)")
        #expect(bob.waitFor { $0.joined().contains("→ #dev: from the lobby") }, "\(bob.dump)")

        dave.write("/rooms\n")
        // (The server's listing may be up to a second old: the member count is not checked.)
        #expect(dave.waitForLine(timeout: 10) { $0.hasPrefix("         #dev (") && $0.hasSuffix("): builds, deploys and coffee") } != nil,
                "\(dave.outputLines)")
        dave.write("/msg #lobby not joined\n")
        #expect(dave.waitForLine(timeout: 10) { $0.contains("you are not in #lobby") } != nil, "\(dave.errorOutput)")
        dave.write("/join lobby\n/msg #dev back to dev\n")
        #expect(dave.waitForEvent("#dev <dave> back to dev"), "\(dave.outputLines)")
    }
}
