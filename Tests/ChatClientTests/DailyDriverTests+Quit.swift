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

        /// `/quit MESSAGE` (issue 24, habits): the others read `bob left (quit: MESSAGE)`, in full
        /// screen and in line mode, and the client ends with status 0.
        @Test func quitWithAMessage() throws {
            let server = try ChatServerProcess()
            defer { server.stop() }
            let home = try ClientHome()
            defer { home.remove() }
            let dave = try home.lineClient(port: server.port, nick: "dave")
            defer { dave.terminate() }
            #expect(dave.waitForEvent("#lobby * dave joined"))
            let bob = try DailyDriverTests.fullScreen(home, port: server.port, nick: "bob")
            #expect(bob.waitFor { $0.joined().contains("bob joined") }, "\(bob.dump)")
            let carol = try home.lineClient(port: server.port, nick: "carol")
            #expect(carol.waitForEvent("#lobby * carol joined"))
            try DailyDriverTests.enter(bob, "/quit off to lunch, back at 2")
            #expect(dave.waitForEvent("#lobby * bob left (quit: off to lunch, back at 2)"), "\(dave.outputLines)")
            #expect(bob.waitFor { $0.contains { $0.contains("EXITED 0") } }, "\(bob.dump)")
            carol.write("/quit see you\n")
            #expect(dave.waitForEvent("#lobby * carol left (quit: see you)"), "\(dave.outputLines)")
            #expect(carol.finish(timeout: 10).status == 0)
        }
    }
}
