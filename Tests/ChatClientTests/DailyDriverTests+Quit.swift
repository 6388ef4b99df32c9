import Foundation
import Glibc
import TestSupport
import Testing

extension DailyDriverTests {
    @Suite("quitting") struct Quitting {
        /// Ctrl-C while a message waits for its acknowledgement does not quit: the client says
        /// how many are pending; a second Ctrl-C quits, with a non-zero status since one was lost.
        @Test func controlCWithAPendingMessageAsksFirst() throws {
            let server = try ChatServerProcess()
            let home = try ClientHome()
            defer { home.remove() }
            let bob = try DailyDriverTests.fullScreen(home, port: server.port, nick: "bob")
            #expect(bob.waitFor { $0.joined().contains("bob joined") })
            server.process.signal(SIGKILL)
            _ = server.process.finish(timeout: 5)
            try bob.type("still pending")
            try bob.press("Enter")
            #expect(bob.waitFor { $0.joined().contains("<bob> still pending") })
            try bob.press("C-c")
            #expect(bob.waitFor { $0.joined().contains("1 message not delivered yet") }, "\(bob.dump)")
            #expect(!bob.dump.contains("EXITED"))
            try bob.press("C-c")
            #expect(bob.waitFor { $0.contains { $0.contains("EXITED 1") } }, "\(bob.dump)")
        }
    }
}
