import Foundation
import Glibc
import TestSupport
import Testing

/// Line mode as scripts use it: input from files and /dev/null, commands only, a /join followed
/// by a line, what it echoes and how it prints, and what it does with commands typed during an
/// outage.
@Suite("chat-client line mode for scripts", .serialized)
struct LineModeScriptTests {
    static func inputFile(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-input-\(UUID().uuidString.prefix(8))").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Standard input from /dev/null: the client connects, reads the end of input and quits, status 0.
    @Test func inputFromDevNullEnds() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let home = try ClientHome()
        defer { home.remove() }
        let client = try home.lineClient(port: server.port, nick: "bob", standardInput: "/dev/null")
        #expect(client.waitForExit(timeout: 20), "still running")
        let result = client.finish(timeout: 1)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("bob joined"))
    }

    /// A file of commands only is carried out before the client quits: the history answer and
    /// the join are printed, status 0, no false "could not reach".
    @Test func fileOfCommandsOnly() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let home = try ClientHome()
        defer { home.remove() }
        let input = try Self.inputFile("/history 5\n/join dev\n")
        defer { try? FileManager.default.removeItem(atPath: input) }
        let client = try home.lineClient(port: server.port, nick: "bob", standardInput: input)
        #expect(client.waitForExit(timeout: 20), "still running")
        let result = client.finish(timeout: 1)
        #expect(result.status == 0, "\(result.errors)")
        let lines = result.output.split(separator: "\n").map { untimed(String($0)) }
        #expect(lines.contains("#lobby (end of history)"), "\(lines)")
        #expect(lines.contains("#dev * bob joined"), "\(lines)")
        #expect(!result.errors.contains("could not reach"), "\(result.errors)")
    }

    /// `/join dev` then a line: the line goes to dev at once and the client quits without
    /// waiting, everything acknowledged.
    @Test func joinThenALine() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let home = try ClientHome()
        defer { home.remove() }
        let watcher = try home.lineClient(port: server.port, nick: "watcher", ["--room", "dev"])
        #expect(watcher.waitForEvent("#dev * watcher joined"))
        let input = try Self.inputFile("/join dev\nhello dev\n")
        defer { try? FileManager.default.removeItem(atPath: input) }
        let client = try home.lineClient(port: server.port, nick: "bob", standardInput: input)
        #expect(watcher.waitForEvent("#dev <bob> hello dev"))
        #expect(client.waitForExit(timeout: 20), "still running")
        let result = client.finish(timeout: 1)
        #expect(result.status == 0, "\(result.errors)")
        #expect(!result.errors.contains("acknowledged"), "\(result.errors)")
        watcher.closeInput()
        _ = watcher.finish(timeout: 10)
    }

    /// Own messages and private messages are echoed; every event starts with a timestamp; a
    /// message with line breaks prints as indented continuation lines, not as `\u{a}`.
    @Test func echoesTimestampsAndLineBreaks() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let home = try ClientHome()
        defer { home.remove() }
        let bob = try home.lineClient(port: server.port, nick: "bob")
        #expect(bob.waitForEvent("#lobby * bob joined"))
        let alice = try home.lineClient(port: server.port, nick: "alice")
        #expect(alice.waitForEvent("#lobby * alice joined"))
        alice.write("hello\n/msg bob psst\n")
        #expect(alice.waitForEvent("#lobby <alice> hello"), "\(alice.outputLines)")
        #expect(alice.waitForEvent("-> *bob* psst"), "\(alice.outputLines)")
        #expect(bob.waitForEvent("*alice* psst"))

        let bot = try runBotScript(#"""
        bot carol lobby {
            send-raw {"type":"msg","room":"lobby","id":"two-lines","text":"first line\nsecond line"}
            say done
            quit
        }
        """#, port: server.port)
        #expect(bot.finish(timeout: 20).status == 0)
        #expect(bob.waitForEvent("#lobby <carol> first line"), "\(bob.outputLines)")
        #expect(bob.waitForLine(timeout: 10) { $0.hasSuffix(" second line") && !$0.contains("<carol>") } != nil, "\(bob.outputLines)")
        #expect(!bob.outputLines.joined().contains("\\u{a}"))
        let events = bob.outputLines.filter { !$0.hasPrefix(" ") }
        #expect(!events.isEmpty && events.allSatisfy { untimed($0) != $0 }, "\(events)")
        alice.closeInput()
        bob.closeInput()
        #expect(alice.finish(timeout: 10).status == 0)
        #expect(bob.finish(timeout: 10).status == 0)
    }

    /// /join, /away, /nick and a message typed while the server is down are carried out once
    /// the client is back: another user then finds the renamed user in dev, away, with the message.
    @Test func commandsTypedDuringAnOutageAreCarriedOut() throws {
        let port = ReconnectTests.freePort()
        var server = try ChatServerProcess(["--port", "\(port)"])
        let home = try ClientHome()
        defer { home.remove() }
        let alice = try home.lineClient(port: port, nick: "alice")
        #expect(alice.waitForEvent("#lobby * alice joined"))
        server.stop()
        #expect(alice.waitForLine(timeout: 10) { $0.contains("reconnecting") } != nil)
        alice.write("/join dev\n/away\n/nick alice2\nhello dev\n")
        server = try ChatServerProcess(["--port", "\(port)"])
        defer { server.stop() }
        #expect(alice.waitForEvent("#dev <alice2> hello dev", timeout: 30), "\(alice.outputLines) \(alice.errorOutput)")

        let watcher = try home.lineClient(port: port, nick: "watcher", ["--room", "dev"])
        #expect(watcher.waitForEvent("#dev members: alice2 watcher"), "\(watcher.outputLines)")
        #expect(watcher.waitForEvent("* alice2 is away"), "\(watcher.outputLines)")
        #expect(watcher.waitForEvent("#dev <alice2> hello dev (history)"), "\(watcher.outputLines)")
        alice.closeInput()
        watcher.closeInput()
        #expect(alice.finish(timeout: 10).status == 0)
        _ = watcher.finish(timeout: 10)
    }
}

extension LineModeScriptTests {
    /// Issue 24, defect 13: `/who` right after `/join` (before the client is even connected)
    /// prints the room's members once the server's list is in, not an empty list; a replayed nick
    /// change keeps its `(history)` tag.
    @Test func whoAfterJoinAndReplayedNickChanges() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let home = try ClientHome()
        defer { home.remove() }
        let carol = try home.lineClient(port: server.port, nick: "carol", ["--room", "dev"])
        defer { carol.terminate() }
        #expect(carol.waitForEvent("#dev * carol joined"))
        carol.write("/nick caroline\n")
        #expect(carol.waitForEvent("#dev * carol is now caroline"))
        let input = try Self.inputFile("/join dev\n/who\n")
        defer { try? FileManager.default.removeItem(atPath: input) }
        let bob = try home.lineClient(port: server.port, nick: "bob", standardInput: input)
        let result = bob.finish(timeout: 30)
        #expect(result.status == 0, "\(result.errors)")
        let lines = result.output.split(separator: "\n").map { untimed(String($0)) }
        let members = lines.filter { $0.hasPrefix("#dev members:") }
        // The roster's line and the answer to /who: both the whole list, none empty.
        #expect(members.count == 2 && members.allSatisfy { $0 == "#dev members: bob caroline" }, "\(lines) \(result.errors)")
        #expect(lines.contains("#dev * carol is now caroline (history)"), "\(lines)")
    }
}
