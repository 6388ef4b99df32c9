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

        /// Defects 6, 12 and 16: `/away REASON` is said and shown on the status bar until /back;
        /// a server's error is said once; a DM to yourself shows once; `/search` finding nothing
        /// and `/history N` answer on the typing line, not in the room's scrollback.
        @Test func commandsSayWhatTheyDidOnce() throws {
            let server = try ChatServerProcess(["--flood-burst", "100", "--flood-rate", "100"])
            defer { server.stop() }
            let home = try ClientHome()
            defer { home.remove() }
            let lines = (1...40).map { "    say old line \($0)" }
            let bot = try runBotScript((["bot carol lobby {"] + lines + ["    quit", "}"]).joined(separator: "\n"), port: server.port)
            #expect(bot.finish(timeout: 30).status == 0)
            let bob = try DailyDriverTests.fullScreen(home, port: server.port, nick: "bob")
            #expect(bob.waitFor { $0.joined().contains("old line 40") && $0.joined().contains("bob joined") }, "\(bob.dump)")

            try DailyDriverTests.enter(bob, "/away at lunch")
            #expect(bob.waitFor { $0.joined().contains("you are away: at lunch") && ($0.first ?? "").contains("bob (away)") }, "\(bob.dump)")
            try DailyDriverTests.enter(bob, "/back")
            #expect(bob.waitFor { $0.joined().contains("you are back") && !($0.first ?? "").contains("(away)") }, "\(bob.dump)")

            try DailyDriverTests.enter(bob, "/kick -server carol")
            #expect(bob.waitFor { $0.joined().contains("!! only server operators may kick from the server") }, "\(bob.dump)")
            #expect(!bob.dump.contains("You are not allowed"), "\(bob.dump)")

            try DailyDriverTests.enter(bob, "/msg bob a note to myself")
            try DailyDriverTests.enter(bob, "/query bob")
            #expect(bob.waitFor { _ in bob.prompt() == "[@bob]" }, "\(bob.dump)")
            #expect(bob.waitFor { $0.filter { $0.contains("a note to myself") }.count == 1 }, "\(bob.dump)")
            try bob.press("M-1")
            #expect(bob.waitFor { _ in bob.prompt() == "[lobby]" }, "\(bob.dump)")

            try DailyDriverTests.enter(bob, "/search no-such-word")
            #expect(bob.waitFor { $0.joined().contains("no line with 'no-such-word'") }, "\(bob.dump)")
            try bob.type("x")
            #expect(bob.waitFor { !$0.joined().contains("no line with") }, "the notice stays in the scrollback: \(bob.dump)")
            try bob.press("C-u")
            try DailyDriverTests.enter(bob, "/history 5")
            #expect(bob.waitFor { $0.joined().contains("5 older events of #lobby above") }, "\(bob.dump)")
        }

        /// Defects 9 and 11: `/buffer NAME` shows a buffer by name and `/buffer` lists them all;
        /// `+` marks you as soon as `/register` is done, not after a reconnect.
        @Test func buffersByNameAndTheMarkOfARegisteredNick() throws {
            let server = try ChatServerProcess()
            defer { server.stop() }
            let home = try ClientHome()
            defer { home.remove() }
            try home.writeConfiguration("rooms = lobby, " + (1...19).map { "r" + ($0 < 10 ? "0" : "") + "\($0)" }.joined(separator: ", ") + "\n")
            let alice = try DailyDriverTests.fullScreen(home, port: server.port, nick: "alice")
            #expect(alice.waitFor { $0.joined().contains("alice joined") && ($0.first ?? "").contains("20") }, "\(alice.dump)")
            try DailyDriverTests.enter(alice, "/buffer r12")
            #expect(alice.waitFor { _ in alice.prompt() == "[r12]" }, "\(alice.dump)")
            try DailyDriverTests.enter(alice, "/buffer")
            #expect(alice.waitFor { $0.joined().contains("buffers: 1:lobby 2:r01") && $0.joined().contains("[13:r12]") }, "\(alice.dump)")
            try DailyDriverTests.enter(alice, "/buffer lob")
            #expect(alice.waitFor { _ in alice.prompt() == "[lobby]" }, "\(alice.dump)")

            try DailyDriverTests.enter(alice, "/register")
            try DailyDriverTests.enter(alice, "correct-horse-alice")
            try DailyDriverTests.enter(alice, "correct-horse-alice")
            #expect(alice.waitFor(timeout: 60) { $0.joined().contains("registered the account alice") }, "\(alice.dump)")
            #expect(alice.waitFor { $0.contains { $0.hasSuffix("|+alice") } }, "\(alice.dump)")
        }

        /// Defect 14: asking for a registered nick gives another, and says so where it stays
        /// visible: after the room's replay, not above it.
        @Test func aTakenNickIsSaidVisibly() throws {
            let server = try ChatServerProcess(["--flood-burst", "100", "--flood-rate", "100"])
            defer { server.stop() }
            let owner = try ClientHome()
            defer { owner.remove() }
            let alice = try owner.lineClient(port: server.port, nick: "alice")
            defer { alice.terminate() }
            alice.write("/register\nalice-password\n")
            #expect(alice.waitForEvent("* registered the account alice; you are logged in", timeout: 60), "\(alice.errorOutput)")
            alice.write((1...30).map { "filler \($0)" }.joined(separator: "\n") + "\n")
            #expect(alice.waitForEvent("#lobby <alice> filler 30", timeout: 30))
            let home = try ClientHome()
            defer { home.remove() }
            let newcomer = try DailyDriverTests.fullScreen(home, port: server.port, nick: "alice", rows: 15)
            #expect(newcomer.waitFor { $0.joined().contains("filler 30") && $0.joined().contains("alice_2 joined") }, "\(newcomer.dump)")
            #expect(newcomer.waitFor { $0.joined().contains("the nick alice is taken") && $0.joined().contains("you are alice_2") },
                    "\(newcomer.dump)")
        }

        /// Defect 15: a server restart does not add `left (shutdown)` and `joined` lines for every
        /// member; what was said meanwhile comes in time order.
        @Test func aServerRestartLeavesNoChurn() throws {
            let port = ReconnectTests.freePort()
            let database = temporaryDatabasePath()
            var server = try ChatServerProcess(["--port", "\(port)", "--db", database])
            let home = try ClientHome()
            defer { home.remove() }
            let carol = try home.lineClient(port: port, nick: "carol")
            defer { carol.terminate() }
            #expect(carol.waitForEvent("#lobby * carol joined"))
            let bob = try DailyDriverTests.fullScreen(home, port: port, nick: "bob")
            #expect(bob.waitFor { $0.joined().contains("bob joined") }, "\(bob.dump)")
            server.stop()
            server = try ChatServerProcess(["--port", "\(port)", "--db", database])
            defer { server.stop() }
            #expect(carol.waitForLine(timeout: 30) { $0.contains("reconnected") } != nil, "\(carol.errorOutput)")
            carol.write("back after the restart\n")
            #expect(bob.waitFor(timeout: 40) { $0.joined().contains("back after the restart") }, "\(bob.dump)")
            #expect(!bob.dump.contains("left (shutdown)"), "\(bob.dump)")
            #expect(bob.screen().filter { $0.contains("carol joined") }.count <= 1, "\(bob.dump)")
        }
    }
}
