import Foundation
import TestSupport
import Testing

/// The real chat-client binaries in tmux against a real chat-server, driven with send-keys and
/// read with capture-pane.
@Suite("chat-client full-screen UI under tmux", .serialized)
struct TerminalUITests {
    /// One home (configuration, private-message store) for the run's full-screen clients, never
    /// the developer's own.
    static let home = try! ClientHome()

    static func clientCommand(port: UInt16, nick: String) -> String {
        home.fullScreenCommand(port: port, nick: nick)
    }

    /// Typing in one client shows "alice is typing…" in the other, then the message itself.
    @Test func typingAndMessageShowInTheOtherClient() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let alice = try TmuxSession(command: Self.clientCommand(port: server.port, nick: "alice"))
        let bob = try TmuxSession(command: Self.clientCommand(port: server.port, nick: "bob"))
        #expect(bob.waitFor { $0.joined().contains("alice joined") })
        try alice.type("hello bob")
        #expect(bob.waitFor { $0.joined().contains("alice is typing") })
        try alice.press("Enter")
        #expect(bob.waitFor { $0.contains { $0.contains("<alice> hello bob") } })
        #expect(bob.waitFor { !$0.joined().contains("alice is typing") })
        #expect(alice.waitFor { $0.contains { $0.contains("hello bob") } })
    }

    /// A peer's text full of terminal escapes and bidi overrides changes nothing: the status bar
    /// stays on the first row, the title and screen modes stay as they were, the text is shown.
    @Test func hostileTextLeavesScreenIntact() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let bob = try TmuxSession(command: Self.clientCommand(port: server.port, nick: "bob"))
        #expect(bob.waitFor { $0.joined().contains("bob joined") })
        let titleBefore = bob.title()
        let hostile = "evil\u{1B}[2J\u{1B}[H\u{1B}]0;pwned\u{07}\u{1B}]52;c;cHduZWQ=\u{07}\u{1B}[?1000h\u{1B}[?1049l\u{9B}31m\u{202E}reversed\u{202C} end"
        let mallory = try ChildProcess(BuildPaths.product("chat-client"),
                                       ["--port", "\(server.port)", "--nick", "mallory", "--ca", TestCertificates.ca, "--plain"])
        mallory.write(hostile + "\n")
        #expect(bob.waitFor { $0.contains { $0.contains("<mallory> evil") } })
        let screen = bob.screen()
        #expect(screen.first?.contains("bob") == true)
        // Shown, never interpreted: the bidi override is a visible placeholder (the server already
        // removed ESC, BEL and C1; the client neutralises what is left).
        let text = screen.map { $0.replacingOccurrences(of: "|", with: "").trimmingCharacters(in: .whitespaces) }.joined()
        #expect(text.contains("U+202E") && text.contains("reversed") && text.contains("end"))
        #expect(!screen.joined().contains("\u{1B}"))
        #expect(bob.title() == titleBefore)
        #expect(bob.title() != "pwned")
        let modes = bob.modes()
        #expect(modes.alternateScreen)
        #expect(!modes.mouse)
        mallory.terminate()
    }

    /// After a resize the UI redraws to the new size: the status bar and the input line fit.
    @Test func resizeRedraws() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let bob = try TmuxSession(command: Self.clientCommand(port: server.port, nick: "bob"), columns: 100, rows: 30)
        #expect(bob.waitFor { $0.joined().contains("bob joined") })
        try bob.resize(columns: 50, rows: 12)
        #expect(bob.waitFor { screen in
            screen.count >= 12 && screen[0].contains("bob") && screen.filter { !$0.isEmpty }.allSatisfy { $0.count <= 50 }
                && screen.joined().contains("bob joined")
        })
        try bob.resize(columns: 120, rows: 40)
        #expect(bob.waitFor { $0.count >= 40 && $0[0].contains("bob") && $0.joined().contains("Members") })
    }

    /// /quit leaves the alternate screen and gives the shell back with exit status 0.
    @Test func quitRestoresTheShell() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let bob = try TmuxSession(command: Self.clientCommand(port: server.port, nick: "bob"))
        #expect(bob.waitFor { $0.joined().contains("bob joined") })
        #expect(bob.modes().alternateScreen)
        try bob.type("/quit")
        try bob.press("Enter")
        #expect(bob.waitFor { $0.contains { $0.contains("EXITED 0") } })
        #expect(!bob.modes().alternateScreen)
    }

    /// Ctrl-C also restores the terminal (raw mode turns it into a key, not a signal).
    @Test func controlCRestoresTheShell() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let bob = try TmuxSession(command: Self.clientCommand(port: server.port, nick: "bob"))
        #expect(bob.waitFor { $0.joined().contains("bob joined") })
        try bob.press("C-c")
        #expect(bob.waitFor { $0.contains { $0.contains("EXITED 0") } })
        #expect(!bob.modes().alternateScreen)
    }
}
