import Foundation
import TestSupport
import Testing

extension DailyDriverTests {
    @Suite("across a server restart") struct AcrossRestart {
        /// After a reconnect the full-screen client still types into the room the person chose
        /// (lobby, picked with Alt-1 after a /join dev), not the room of the last /join.
        @Test func reconnectKeepsTheRoomBeingTypedInto() throws {
            let port = ReconnectTests.freePort()
            var server = try ChatServerProcess(["--port", "\(port)"])
            let home = try ClientHome()
            defer { home.remove() }
            let watcher = try home.lineClient(port: port, nick: "watcher")
            #expect(watcher.waitForLine(timeout: 10) { $0.contains("watcher joined") } != nil)
            watcher.write("/join dev\n")
            #expect(watcher.waitForLine(timeout: 10) { $0.contains("#dev * watcher joined") } != nil)

            let bob = try DailyDriverTests.fullScreen(home, port: port, nick: "bob")
            #expect(bob.waitFor { $0.joined().contains("bob joined") })
            try bob.type("/join dev")
            try bob.press("Enter")
            #expect(bob.waitFor { _ in bob.prompt() == "[dev]" }, "\(bob.dump)")
            #expect(watcher.waitForLine(timeout: 10) { $0.contains("#dev * bob joined") } != nil)
            try bob.press("M-1")
            #expect(bob.waitFor { _ in bob.prompt() == "[lobby]" }, "\(bob.dump)")

            server.stop()
            server = try ChatServerProcess(["--port", "\(port)"])
            defer { server.stop() }
            // Bob is back in dev: the watcher, reconnected too, sees him join it again, or finds him
            // in the roster when it re-joins after him (the restarted server, without --db, counts
            // seq from 1 again, so its replay after the watcher's old `since` is empty).
            let bobInDev: (String) -> Bool = { $0.contains("#dev * bob joined") || untimed($0) == "#dev members: bob watcher" }
            #expect(watcher.waitForLine(timeout: 30, skipping: 1, where: bobInDev) != nil,
                    "\(watcher.outputLines) \(watcher.errorOutput)\n\(bob.dump)")
            #expect(bob.waitFor { $0.first?.contains(" connected") == true }, "\(bob.dump)")
            #expect(bob.prompt() == "[lobby]", "\(bob.dump)")
            try bob.type("where am i")
            try bob.press("Enter")
            let line = watcher.waitForLine(timeout: 10) { $0.contains("<bob> where am i") }
            #expect(line.map(untimed) == "#lobby <bob> where am i")
            watcher.closeInput()
            _ = watcher.finish(timeout: 10)
        }
    }
}
