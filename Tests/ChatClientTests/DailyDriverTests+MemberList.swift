import Foundation
import TestSupport
import Testing

extension DailyDriverTests {
    @Suite("member list") struct MemberList {
        /// A client that joins after others joined, left and renamed lists exactly the server's
        /// roster (the one who left is gone, each renamed user once under the new nick), in the
        /// member pane and in /who, and keeps it so as the renamed user quits and another renames.
        /// Long messages first make the replay span many packets, so the roster (on the presence
        /// stream) arrives in the middle of it.
        @Test func lateJoinerListsExactlyTheRoster() throws {
            let server = try ChatServerProcess()
            defer { server.stop() }
            let home = try ClientHome()
            defer { home.remove() }
            let long = String(repeating: "long message ", count: 300)
            let script = (["bot mallory lobby {"] + (1...14).map { "    say \($0) \(long)" } + ["    quit", "}"]).joined(separator: "\n")
            let bot = try runBotScript(script, port: server.port)
            #expect(bot.finish(timeout: 30).status == 0)
            let carol = try home.lineClient(port: server.port, nick: "carol")
            #expect(carol.waitForLine(timeout: 10) { $0.contains("carol joined") } != nil)
            carol.closeInput()
            #expect(carol.finish(timeout: 10).status == 0)
            let dave = try home.lineClient(port: server.port, nick: "dave")
            #expect(dave.waitForLine(timeout: 10) { $0.contains("dave joined") } != nil)
            dave.write("/nick dave2\n")
            #expect(dave.waitForLine(timeout: 10) { $0.contains("dave is now dave2") } != nil)
            let erin = try home.lineClient(port: server.port, nick: "erin")
            #expect(erin.waitForLine(timeout: 10) { $0.contains("erin joined") } != nil)
            erin.write("/nick erin2\n")
            #expect(erin.waitForLine(timeout: 10) { $0.contains("erin is now erin2") } != nil)

            let bob = try DailyDriverTests.fullScreen(home, port: server.port, nick: "bob")
            #expect(bob.waitFor { $0.joined().contains("bob joined") })
            #expect(bob.waitFor { memberList($0, columns: DailyDriverTests.columns) == ["bob", "dave2", "erin2"] }, "\(bob.dump)")
            try bob.type("/who")
            try bob.press("Enter")
            #expect(bob.waitFor { $0.joined().contains("3 here: bob dave2 erin2") }, "\(bob.dump)")

            dave.closeInput()
            #expect(dave.finish(timeout: 10).status == 0)
            #expect(bob.waitFor { $0.joined().contains("dave2 left") })
            #expect(bob.waitFor { memberList($0, columns: DailyDriverTests.columns) == ["bob", "erin2"] }, "\(bob.dump)")
            erin.write("/nick erin3\n")
            #expect(bob.waitFor { memberList($0, columns: DailyDriverTests.columns) == ["bob", "erin3"] }, "\(bob.dump)")
            erin.closeInput()
            _ = erin.finish(timeout: 10)
        }
    }
}
