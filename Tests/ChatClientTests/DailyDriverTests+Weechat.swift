import Foundation
import TestSupport
import Testing

extension DailyDriverTests {
    /// Issue 24: the habits of weechat, irssi and senpai users, each in the full-screen client
    /// and in line mode.
    @Suite("weechat habits") struct WeechatHabits {
        /// `/ignore carol`: nothing of hers is shown, in full screen and in line mode; the list
        /// is kept in the configuration, so a client started again still ignores her; `/unignore`
        /// shows her again.
        @Test func ignore() throws {
            let server = try ChatServerProcess()
            defer { server.stop() }
            let home = try ClientHome()
            defer { home.remove() }
            let carol = try home.lineClient(port: server.port, nick: "carol")
            defer { carol.terminate() }
            #expect(carol.waitForEvent("#lobby * carol joined"))
            let bob = try DailyDriverTests.fullScreen(home, port: server.port, nick: "bob")
            #expect(bob.waitFor { $0.joined().contains("bob joined") }, "\(bob.dump)")
            try DailyDriverTests.enter(bob, "/ignore carol")
            #expect(bob.waitFor { $0.joined().contains("ignoring carol") }, "\(bob.dump)")
            let daveHome = try ClientHome()
            defer { daveHome.remove() }
            let dave = try daveHome.lineClient(port: server.port, nick: "dave")
            defer { dave.terminate() }
            #expect(dave.waitForEvent("#lobby * dave joined"))
            dave.write("/ignore carol\n")
            #expect(dave.waitForLine(timeout: 10) { $0.contains("ignoring carol") } != nil)
            carol.write("you should not see this\n")
            carol.write("/msg bob nor this\n")
            carol.write("/msg dave nor this\n")
            // A line from someone else after hers: once it is shown, hers had its chance.
            let erin = try home.lineClient(port: server.port, nick: "erin")
            defer { erin.terminate() }
            erin.write("erin speaks\n")
            #expect(bob.waitFor { $0.joined().contains("erin speaks") }, "\(bob.dump)")
            #expect(dave.waitForLine(timeout: 10) { $0.contains("<erin> erin speaks") } != nil)
            #expect(!bob.dump.contains("should not see") && !bob.dump.contains("nor this") && !bob.dump.contains("@carol"), "\(bob.dump)")
            #expect(!dave.outputLines.contains { $0.contains("should not see") || $0.contains("nor this") }, "\(dave.outputLines)")
            let configuration = try String(contentsOfFile: home.configDirectory + "/qchat/client.conf", encoding: .utf8)
            #expect(configuration.contains("ignore = carol"), "\(configuration)")

            // Started again, bob still ignores her; /unignore shows her again.
            try DailyDriverTests.enter(bob, "/quit")
            #expect(bob.waitFor { $0.joined().contains("EXITED") }, "\(bob.dump)")
            let again = try DailyDriverTests.fullScreen(home, port: server.port, nick: "bob")
            #expect(again.waitFor { $0.joined().contains("bob joined") }, "\(again.dump)")
            carol.write("still hidden\n")
            erin.write("erin again\n")
            #expect(again.waitFor { $0.joined().contains("erin again") }, "\(again.dump)")
            #expect(!again.dump.contains("still hidden"), "\(again.dump)")
            try DailyDriverTests.enter(again, "/unignore carol")
            #expect(again.waitFor { $0.joined().contains("no longer ignoring carol") }, "\(again.dump)")
            carol.write("seen again\n")
            #expect(again.waitFor { $0.joined().contains("<carol> seen again") }, "\(again.dump)")
            #expect(!(try String(contentsOfFile: home.configDirectory + "/qchat/client.conf", encoding: .utf8)).contains("carol"))
        }

        /// The smart filter: with `smart-filter = on` the join and part of someone who never
        /// spoke are not shown, those of someone who just spoke are; `/filter off` shows them all.
        /// In full screen and in line mode.
        @Test func smartFilter() throws {
            let server = try ChatServerProcess()
            defer { server.stop() }
            let home = try ClientHome()
            defer { home.remove() }
            try home.writeConfiguration("smart-filter = on\n")
            let bob = try DailyDriverTests.fullScreen(home, port: server.port, nick: "bob")
            #expect(bob.waitFor { $0.joined().contains("bob joined") }, "\(bob.dump)")
            let dave = try home.lineClient(port: server.port, nick: "dave")
            defer { dave.terminate() }
            #expect(dave.waitForEvent("#lobby * dave joined"))
            let quiet = try runBotScript("bot quietone lobby {\n    quit\n}\n", port: server.port)
            #expect(quiet.finish(timeout: 20).status == 0)
            let talker = try runBotScript("bot talker lobby {\n    say hello all\n    quit\n}\n", port: server.port)
            #expect(talker.finish(timeout: 20).status == 0)
            #expect(bob.waitFor { $0.joined().contains("talker left") }, "\(bob.dump)")
            #expect(dave.waitForEvent("#lobby * talker left (quit)"))
            #expect(!bob.dump.contains("quietone"), "\(bob.dump)")
            #expect(!dave.outputLines.contains { $0.contains("quietone") }, "\(dave.outputLines)")
            try DailyDriverTests.enter(bob, "/filter off")
            dave.write("/filter off\n")
            #expect(bob.waitFor { $0.joined().contains("the smart filter is off") }, "\(bob.dump)")
            #expect(dave.waitForLine(timeout: 10) { $0.contains("the smart filter is off") } != nil)
            let again = try runBotScript("bot quiettwo lobby {\n    quit\n}\n", port: server.port)
            #expect(again.finish(timeout: 20).status == 0)
            #expect(bob.waitFor { $0.joined().contains("quiettwo left") }, "\(bob.dump)")
            #expect(dave.waitForEvent("#lobby * quiettwo left (quit)"))
        }

        /// Word-wise editing as readline does it: Alt-B back a word, Alt-D cuts the word after the
        /// cursor, Alt-Backspace the one before, Ctrl-Left/Ctrl-Right a word at a time, Ctrl-T
        /// swaps two characters. (Line mode reads whole lines: its editing is the terminal's.)
        @Test func wordWiseEditing() throws {
            let server = try ChatServerProcess()
            defer { server.stop() }
            let home = try ClientHome()
            defer { home.remove() }
            let watcher = try home.lineClient(port: server.port, nick: "watcher")
            defer { watcher.terminate() }
            #expect(watcher.waitForEvent("#lobby * watcher joined"))
            let bob = try DailyDriverTests.fullScreen(home, port: server.port, nick: "bob")
            #expect(bob.waitFor { $0.joined().contains("bob joined") }, "\(bob.dump)")
            try bob.type("hello brave new wrold")
            try bob.press("C-Left")
            try bob.press("C-Right")
            try bob.press("Left")
            try bob.press("Left")
            try bob.press("Left")
            try bob.press("C-t")
            try bob.press("M-b")
            try bob.press("M-b")
            try bob.press("M-d")
            try bob.press("M-b")
            try bob.press("M-BSpace")
            try bob.press("Enter")
            #expect(watcher.waitForLine(timeout: 10) { $0.contains("<bob>") }.map { untimed($0) } == "#lobby <bob> brave  world",
                    "\(watcher.outputLines)")
        }

        /// Away with a reason: the bar says so, and whoever writes privately is told the reason,
        /// once; in line mode too.
        @Test func awayAnswersPrivateMessages() throws {
            let server = try ChatServerProcess()
            defer { server.stop() }
            let home = try ClientHome()
            defer { home.remove() }
            let alice = try home.lineClient(port: server.port, nick: "alice")
            defer { alice.terminate() }
            #expect(alice.waitForEvent("#lobby * alice joined"))
            let bob = try DailyDriverTests.fullScreen(home, port: server.port, nick: "bob")
            #expect(bob.waitFor { $0.joined().contains("bob joined") }, "\(bob.dump)")
            let dave = try home.lineClient(port: server.port, nick: "dave")
            defer { dave.terminate() }
            #expect(dave.waitForEvent("#lobby * dave joined"))
            try DailyDriverTests.enter(bob, "/away at lunch")
            dave.write("/away in a meeting\n")
            #expect(bob.waitFor { ($0.first ?? "").contains("bob (away)") }, "\(bob.dump)")
            #expect(dave.waitForLine(timeout: 10) { $0.contains("you are away: in a meeting") } != nil)
            alice.write("/msg bob are you there\n/msg dave are you there\n")
            #expect(alice.waitForEvent("* bob is away: at lunch (private)"), "\(alice.outputLines)")
            #expect(alice.waitForEvent("* dave is away: in a meeting (private)"), "\(alice.outputLines)")
            alice.write("/msg bob again\n")
            #expect(bob.waitFor { ($0.first ?? "").contains("@alice(2") }, "\(bob.dump)")
            alice.write("/msg dave again\n")
            #expect(dave.waitForLine(timeout: 10) { $0.contains("*alice* again") } != nil)
            #expect(alice.lineCount { $0.contains("is away:") } == 2, "\(alice.outputLines)")
        }

        /// Started again, the full-screen client rejoins the rooms it was in (not one it left);
        /// `--room` says the rooms itself. (Line mode: a script names its rooms.)
        @Test func rejoinsItsRoomsAfterARestart() throws {
            let server = try ChatServerProcess()
            defer { server.stop() }
            let home = try ClientHome()
            defer { home.remove() }
            let bob = try DailyDriverTests.fullScreen(home, port: server.port, nick: "bob")
            #expect(bob.waitFor { $0.joined().contains("bob joined") }, "\(bob.dump)")
            for room in ["dev", "ops", "tmp"] {
                try DailyDriverTests.enter(bob, "/join \(room)")
                #expect(bob.waitFor { _ in bob.prompt() == "[\(room)]" }, "\(bob.dump)")
            }
            try DailyDriverTests.enter(bob, "/part tmp")
            #expect(bob.waitFor { !($0.first ?? "").contains("tmp") }, "\(bob.dump)")
            try DailyDriverTests.enter(bob, "/quit")
            #expect(bob.waitFor { $0.joined().contains("EXITED") }, "\(bob.dump)")
            let again = try DailyDriverTests.fullScreen(home, port: server.port, nick: "bob")
            #expect(again.waitFor { ($0.first ?? "").contains("1:lobby") && ($0.first ?? "").contains("2:dev") && ($0.first ?? "").contains("3:ops") },
                    "\(again.dump)")
            #expect(again.waitFor { $0.joined().contains("bob joined") }, "\(again.dump)")
            #expect(!(again.screen().first ?? "").contains("tmp"), "\(again.dump)")
            let watcher = try home.lineClient(port: server.port, nick: "watcher", ["--room", "ops"])
            defer { watcher.terminate() }
            #expect(watcher.waitForLine(timeout: 10) { untimed($0).hasPrefix("#ops members:") && $0.contains("bob") } != nil, "\(watcher.outputLines)")
            try DailyDriverTests.enter(again, "/quit")
            #expect(again.waitFor { $0.joined().contains("EXITED") }, "\(again.dump)")
            let chosen = try DailyDriverTests.fullScreen(home, port: server.port, nick: "bob", ["--room", "lobby"])
            #expect(chosen.waitFor { $0.joined().contains("bob joined") }, "\(chosen.dump)")
            #expect(!(chosen.screen().first ?? "").contains("dev"), "\(chosen.dump)")
        }

        /// `/lastlog WORD`: every line with the word in a view of its own, closed by /close;
        /// in line mode the lines it printed with the word, again.
        @Test func lastlog() throws {
            let server = try ChatServerProcess(["--flood-burst", "100", "--flood-rate", "100"])
            defer { server.stop() }
            let home = try ClientHome()
            defer { home.remove() }
            let bob = try DailyDriverTests.fullScreen(home, port: server.port, nick: "bob")
            #expect(bob.waitFor { $0.joined().contains("bob joined") }, "\(bob.dump)")
            let dave = try home.lineClient(port: server.port, nick: "dave")
            defer { dave.terminate() }
            // In the room before carol speaks: a later join would get only the replay's tail.
            #expect(dave.waitForEvent("#lobby * dave joined"), "\(dave.outputLines)")
            let lines = (1...30).map { "    say line \($0)" + ($0 % 10 == 0 ? " deploy" : "") }
            let bot = try runBotScript((["bot carol lobby {"] + lines + ["    quit", "}"]).joined(separator: "\n"), port: server.port)
            #expect(bot.finish(timeout: 30).status == 0)
            #expect(bob.waitFor { $0.joined().contains("carol left") }, "\(bob.dump)")
            #expect(dave.waitForEvent("#lobby * carol left (quit)"))
            try DailyDriverTests.enter(bob, "/lastlog deploy")
            #expect(bob.waitFor { screen in screen.joined().contains("3 lines of lobby with 'deploy'")
                && ["line 10 deploy", "line 20 deploy", "line 30 deploy"].allSatisfy { screen.joined().contains($0) } }, "\(bob.dump)")
            #expect(bob.prompt() == "[=lastlog]" && !bob.dump.contains("line 11"), "\(bob.dump)")
            try DailyDriverTests.enter(bob, "/close")
            #expect(bob.waitFor { _ in bob.prompt() == "[lobby]" }, "\(bob.dump)")
            dave.write("/lastlog deploy\n")
            #expect(dave.waitForLine(timeout: 10) { $0.contains("3 lines with 'deploy'") } != nil, "\(dave.outputLines)")
            // The second printing of line 30 (the first is the live one): the reprint is whole then.
            #expect(dave.waitForLine(timeout: 10, skipping: 1) { $0.contains("<carol> line 30 deploy") } != nil, "\(dave.outputLines)")
            #expect(dave.lineCount { $0.contains("<carol> line 20 deploy") } == 2, "\(dave.outputLines)")
        }
    }
}
