import Foundation
import TestSupport
import Testing

/// Issue 24, defect 1: on a terminal that reads slowly, a frame was cut in the middle (the rest
/// of a non-blocking write dropped) and the next frame drawn as a diff against a screen never
/// fully drawn: stray characters stayed until Ctrl-L. Every frame must reach the terminal whole.
@Suite("chat-client on a slow terminal", .serialized)
struct SlowTerminalTests {
    /// A burst of long wrapped messages while the terminal reads nothing (its buffer fills), then
    /// slowly (128 bytes every 10 ms): what the emulator finally shows equals what a full redraw
    /// (Ctrl-L) of the client's model shows.
    @Test func burstsOfWrappedOutputLeaveNoStrayCells() throws {
        let server = try ChatServerProcess(["--flood-burst", "500", "--flood-rate", "500"])
        defer { server.stop() }
        let home = try ClientHome()
        defer { home.remove() }
        let command = ["/usr/bin/env"] + home.environment.map { "\($0.key)=\($0.value)" }.sorted()
            + [BuildPaths.product("chat-client")] + ClientHome.arguments(port: server.port, nick: "bob") + ["--no-color"]
        let terminal = try SlowTerminal(command, chunk: 128, delay: 10)
        defer { terminal.stop() }
        #expect(terminal.wait(for: "bob joined"), "\(terminal.process.outputLines.suffix(40))")
        let watcher = try home.lineClient(port: server.port, nick: "watcher")
        defer { watcher.terminate() }
        #expect(watcher.waitForEvent("#lobby * watcher joined"))
        #expect(terminal.wait(for: "watcher joined"))
        terminal.command("pause")
        // Words that differ from message to message, so that every cell of the pane changes as it scrolls.
        let words: (Int) -> String = { message in (1...40).map { "w\(($0 * 7919 + message * 104_729) % 99_991)" }.joined(separator: " ") }
        // One message every 20 ms: a frame each, more than the terminal reads meanwhile.
        let lines = (1...60).flatMap { ["    say burst \($0) \(words($0))", "    wait 20ms"] }
        let bot = try runBotScript((["bot alice lobby {"] + lines + ["    quit", "}"]).joined(separator: "\n"), port: server.port)
        #expect(bot.finish(timeout: 60).status == 0)
        #expect(watcher.waitForEvent("#lobby * alice left (quit)"))
        terminal.command("resume")
        #expect(terminal.wait(for: "alice left"), "\(terminal.screen().joined(separator: "\n"))")
        #expect(terminal.quiet())
        let drawn = terminal.screen()
        terminal.command("key C-l")
        #expect(terminal.quiet())
        let redrawn = terminal.screen()
        // The status bar's RTT may change between the two; every other row must be the same.
        #expect(drawn.count == 30 && redrawn.count == 30)
        for row in 1..<min(drawn.count, redrawn.count) where drawn[row] != redrawn[row] {
            Issue.record("row \(row) differs from a full redraw:\n  drawn:    \(drawn[row])\n  redrawn:  \(redrawn[row])")
        }
    }
}
