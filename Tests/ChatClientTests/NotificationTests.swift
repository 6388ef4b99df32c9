import Foundation
import TestSupport
import Testing

/// Desktop notifications through the terminal (issue 24, habits): with `notify = osc9` a mention
/// and a private message each ask the terminal for a notification saying who wrote what, where;
/// an ordinary message does not. Seen on a pseudo-terminal (tmux keeps OSC 9 to itself).
@Suite("desktop notifications", .serialized)
struct NotificationTests {
    @Test func mentionsAndPrivateMessagesNotify() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let home = try ClientHome()
        defer { home.remove() }
        try home.writeConfiguration("notify = osc9\n")
        let command = ["/usr/bin/env", "-u", "TMUX"] + home.environment.map { "\($0.key)=\($0.value)" }.sorted()
            + [BuildPaths.product("chat-client")] + ClientHome.arguments(port: server.port, nick: "bob")
        let terminal = try SlowTerminal(command, chunk: 4096, delay: 1)
        defer { terminal.stop() }
        #expect(terminal.wait(for: "bob joined"), "\(terminal.process.outputLines.suffix(40))")
        let alice = try home.lineClient(port: server.port, nick: "alice")
        defer { alice.terminate() }
        #expect(alice.waitForEvent("#lobby * alice joined"))
        alice.write("just chatting\n")
        alice.write("bob: the build is red \u{1B}]9;forged\u{07};done\n")
        alice.write("/msg bob a word in private\n")
        #expect(terminal.wait(for: "2:@alice"), "\(terminal.screen())")
        #expect(terminal.quiet(300))
        // (The server already took the ESC and BEL out; the client's own neutralising is DesktopNotificationTests'.)
        #expect(terminal.notifications() == ["9;qchat: alice in #lobby: bob: the build is red ]9,forged,done",
                                             "9;qchat: alice (private): a word in private"], "\(terminal.notifications())")
    }

    /// A web address is a hyperlink (OSC 8) the terminal can open, the whole address however the
    /// row cut it (issue 24, URLs; tmux keeps OSC 8 to itself, so a pseudo-terminal again).
    @Test func webAddressesAreHyperlinks() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let home = try ClientHome()
        defer { home.remove() }
        let command = ["/usr/bin/env", "-u", "TMUX"] + home.environment.map { "\($0.key)=\($0.value)" }.sorted()
            + [BuildPaths.product("chat-client")] + ClientHome.arguments(port: server.port, nick: "bob")
        let terminal = try SlowTerminal(command, columns: 60, chunk: 4096, delay: 1)
        defer { terminal.stop() }
        #expect(terminal.wait(for: "bob joined"), "\(terminal.process.outputLines.suffix(40))")
        let alice = try home.lineClient(port: server.port, nick: "alice")
        defer { alice.terminate() }
        let url = "https://example.org/" + (0..<8).map { "part\($0)" }.joined(separator: "/") + "?q=1"
        alice.write("read \(url), then reply\n")
        #expect(terminal.wait(for: "then reply"), "\(terminal.screen())")
        #expect(terminal.quiet(300))
        let links = terminal.hyperlinks()
        #expect(!links.isEmpty && links.allSatisfy { $0 == url }, "\(links)")
    }

    @Test func aBadNotifySettingIsAnError() throws {
        let home = try ClientHome()
        defer { home.remove() }
        try home.writeConfiguration("notify = popup\n")
        let run = try ChildProcess(BuildPaths.product("chat-client"), ClientHome.arguments(port: 9, nick: "bob") + ["--plain"],
                                   environment: home.environment).finish(timeout: 10)
        #expect(run.status == 2 && run.errors.contains("notify must be off, osc9 or osc777, not 'popup'"), "\(run.errors)")
    }
}
