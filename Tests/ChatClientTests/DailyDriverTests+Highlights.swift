import Foundation
import TestSupport
import Testing

extension DailyDriverTests {
    @Suite("highlights, private conversations, the read marker") struct Highlights {
        /// The status bar.
        static func bar(_ session: TmuxSession) -> String { session.screen().first ?? "" }

        /// A message naming you or a highlight word in a room you are not looking at rings the
        /// bell (tmux's window_bell_flag), is counted apart on the status bar and in the title; an
        /// ordinary one is only unread; a private message opens its conversation, rings and counts
        /// too. Alt-Tab goes to the room with the highlights, then to the conversation.
        @Test func mentionsAndPrivateMessagesRingAndCount() throws {
            let server = try ChatServerProcess()
            defer { server.stop() }
            let home = try ClientHome()
            defer { home.remove() }
            try home.writeConfiguration("rooms = lobby, dev\nhighlight = deploy\n")
            let bob = try DailyDriverTests.fullScreen(home, port: server.port, nick: "bob")
            #expect(bob.waitFor { $0.joined().contains("bob joined") && Self.bar(bob).contains("2:dev") }, "\(bob.dump)")
            let alice = try home.lineClient(port: server.port, nick: "alice", ["--room", "dev"])
            #expect(alice.waitForEvent("#dev * alice joined"))

            alice.write("just chatting\n")
            #expect(bob.waitFor { _ in Self.bar(bob).contains("2:dev(1)") }, "\(bob.dump)")
            #expect(!bob.bellRang())
            alice.write("bob: are you there?\n")
            #expect(bob.waitFor { _ in Self.bar(bob).contains("2:dev(2,1!)") }, "\(bob.dump)")
            #expect(bob.waitFor { _ in bob.bellRang() })
            #expect(bob.waitFor { _ in bob.title().contains("(1!)") }, "\(bob.title())")
            alice.write("time to deploy\n")
            #expect(bob.waitFor { _ in Self.bar(bob).contains("2:dev(3,2!)") }, "\(bob.dump)")
            alice.write("/msg bob psst\n")
            #expect(bob.waitFor { _ in Self.bar(bob).contains("3:@alice(1,1!)") }, "\(bob.dump)")
            #expect(bob.title().contains("(3!)"), "\(bob.title())")

            try bob.press("M-Tab")
            #expect(bob.waitFor { _ in bob.prompt() == "[dev]" }, "\(bob.dump)")
            #expect(bob.dump.contains("<alice> bob: are you there?"))
            try bob.press("M-Tab")
            #expect(bob.waitFor { _ in bob.prompt() == "[@alice]" }, "\(bob.dump)")
            #expect(bob.dump.contains("*alice* psst"))
            #expect(bob.waitFor { _ in !bob.title().contains("!)") }, "\(bob.title())")
            alice.closeInput()
            _ = alice.finish(timeout: 10)
        }

        /// /query opens a private conversation; what you type there is a private message, shown
        /// as such and not in any room; the conversation, with its messages, is back after a
        /// restart of the client (its local store); /close closes it.
        @Test func privateConversationsSurviveARestart() throws {
            let server = try ChatServerProcess()
            defer { server.stop() }
            let home = try ClientHome()
            defer { home.remove() }
            var bob = try DailyDriverTests.fullScreen(home, port: server.port, nick: "bob")
            #expect(bob.waitFor { $0.joined().contains("bob joined") })
            let alice = try home.lineClient(port: server.port, nick: "alice")
            #expect(alice.waitForEvent("#lobby * alice joined"))
            alice.write("/msg bob hello in private\n")
            #expect(bob.waitFor { _ in Self.bar(bob).contains("@alice") }, "\(bob.dump)")
            try DailyDriverTests.enter(bob, "/query alice")
            #expect(bob.waitFor { _ in bob.prompt() == "[@alice]" }, "\(bob.dump)")
            #expect(bob.dump.contains("*alice* hello in private"))
            try DailyDriverTests.enter(bob, "hi alice")
            #expect(alice.waitForEvent("*bob* hi alice"))
            #expect(bob.waitFor { $0.joined().contains("*bob* hi alice") }, "\(bob.dump)")
            try bob.press("M-1")
            #expect(bob.waitFor { _ in bob.prompt() == "[lobby]" })
            #expect(!bob.dump.contains("hello in private") && !bob.dump.contains("hi alice"))
            try DailyDriverTests.enter(bob, "/quit")
            #expect(bob.waitFor { $0.contains { $0.contains("EXITED 0") } }, "\(bob.dump)")
            bob.kill()

            bob = try DailyDriverTests.fullScreen(home, port: server.port, nick: "bob")
            #expect(bob.waitFor { $0.joined().contains("bob joined") && Self.bar(bob).contains("2:@alice") }, "\(bob.dump)")
            try DailyDriverTests.enter(bob, "/buffer 2")
            #expect(bob.waitFor { $0.joined().contains("*alice* hello in private") && $0.joined().contains("*bob* hi alice") }, "\(bob.dump)")
            try DailyDriverTests.enter(bob, "/close")
            #expect(bob.waitFor { _ in !Self.bar(bob).contains("@alice") && bob.prompt() == "[lobby]" }, "\(bob.dump)")
            alice.closeInput()
            _ = alice.finish(timeout: 10)
        }

        /// Leaving a room and coming back shows a read marker between what you had seen and what
        /// came while you were away.
        @Test func readMarkerShowsWhereYouLeft() throws {
            let server = try ChatServerProcess()
            defer { server.stop() }
            let home = try ClientHome()
            defer { home.remove() }
            try home.writeConfiguration("rooms = lobby, dev\n")
            let bob = try DailyDriverTests.fullScreen(home, port: server.port, nick: "bob")
            #expect(bob.waitFor { _ in Self.bar(bob).contains("2:dev") })
            let alice = try home.lineClient(port: server.port, nick: "alice", ["--room", "dev"])
            alice.write("seen before\n")
            #expect(bob.waitFor { _ in Self.bar(bob).contains("2:dev(1)") }, "\(bob.dump)")
            try bob.press("M-2")
            #expect(bob.waitFor { $0.joined().contains("<alice> seen before") })
            try bob.press("M-1")
            #expect(bob.waitFor { _ in bob.prompt() == "[lobby]" })
            alice.write("while you were away\n")
            #expect(bob.waitFor { _ in Self.bar(bob).contains("2:dev(1)") }, "\(bob.dump)")
            try bob.press("M-2")
            #expect(bob.waitFor { $0.joined().contains("<alice> while you were away") })
            let screen = bob.screen()
            let seen = screen.firstIndex { $0.contains("<alice> seen before") } ?? -1
            let marker = screen.firstIndex { $0.contains("── new ──") } ?? -1
            let away = screen.firstIndex { $0.contains("<alice> while you were away") } ?? -1
            #expect(seen < marker && marker < away && seen >= 0, "\(bob.dump)")
            alice.closeInput()
            _ = alice.finish(timeout: 10)
        }
    }
}
