import Foundation
import Glibc
import TestSupport
import Testing

extension DailyDriverTests {
    /// Issue 24: what a second working day in the full-screen client found, each checked end to end.
    @Suite("a second working day") struct SecondDay {
        /// Defect 2: a line typed after `/join newroom` while the server is down goes to newroom
        /// once the client is back, not to the room shown before the /join.
        @Test func lineAfterJoinWhileDisconnectedGoesToTheNewRoom() throws {
            let port = ReconnectTests.freePort()
            var server = try ChatServerProcess(["--port", "\(port)"])
            let home = try ClientHome()
            defer { home.remove() }
            let bob = try DailyDriverTests.fullScreen(home, port: port, nick: "bob")
            #expect(bob.waitFor { $0.joined().contains("bob joined") }, "\(bob.dump)")
            server.stop()
            try DailyDriverTests.enter(bob, "/join newroom")
            #expect(bob.waitFor { ($0.first ?? "").contains("reconnecting") }, "\(bob.dump)")
            try DailyDriverTests.enter(bob, "hello new room")
            server = try ChatServerProcess(["--port", "\(port)"])
            defer { server.stop() }
            let watcher = try home.lineClient(port: port, nick: "watcher", ["--room", "newroom"])
            defer { watcher.terminate() }
            let line = watcher.waitForLine(timeout: 40) { $0.contains("<bob> hello new room") }
            #expect(line.map { untimed($0).hasPrefix("#newroom <bob> hello new room") } == true,
                    "\(watcher.outputLines)\n\(bob.dump)")
        }

        /// Defect 3: after a kick, `/join` of the room shows what came since, not the room's whole
        /// history a second time under the lines still on screen.
        @Test func rejoinAfterAKickShowsTheHistoryOnce() throws {
            let server = try ChatServerProcess()
            defer { server.stop() }
            let home = try ClientHome()
            defer { home.remove() }
            let alice = try home.lineClient(port: server.port, nick: "alice", ["--room", "dev"])
            defer { alice.terminate() }
            alice.write("/register\nalice-password\n/claim\n")
            #expect(alice.waitForEvent("#dev * alice claimed the room"), "\(alice.outputLines) \(alice.errorOutput)")
            let bob = try DailyDriverTests.fullScreen(home, port: server.port, nick: "bob", ["--room", "dev"])
            #expect(bob.waitFor { $0.joined().contains("bob joined") }, "\(bob.dump)")
            alice.write("a line said once\n")
            #expect(bob.waitFor { $0.joined().contains("a line said once") }, "\(bob.dump)")
            alice.write("/kick bob out\n")
            #expect(bob.waitFor { $0.joined().contains("kicked bob (out)") }, "\(bob.dump)")
            try DailyDriverTests.enter(bob, "/join dev")
            #expect(bob.waitFor { $0.filter { $0.contains("bob joined") }.count >= 2 }, "\(bob.dump)")
            alice.write("after the rejoin\n")
            #expect(bob.waitFor { $0.joined().contains("after the rejoin") }, "\(bob.dump)")
            #expect(bob.screen().filter { $0.contains("a line said once") }.count == 1, "\(bob.dump)")
        }
    }
}
