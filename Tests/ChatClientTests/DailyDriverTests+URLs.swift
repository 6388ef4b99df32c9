import Foundation
import TestSupport
import Testing

extension DailyDriverTests.WeechatHabits {
    /// URLs kept whole: a URL longer than the pane continues at the first column (no indent to
    /// copy with it); `/nicklist` gives the text the whole width; `/urls` lists each address whole
    /// on a line of its own, in full screen and in line mode.
    @Test func urlsKeptWhole() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let home = try ClientHome()
        defer { home.remove() }
        let url = "https://example.org/" + (0..<9).map { "segment\($0)" }.joined(separator: "/")
        let dave = try home.lineClient(port: server.port, nick: "dave")
        defer { dave.terminate() }
        #expect(dave.waitForEvent("#lobby * dave joined"))
        let bob = try DailyDriverTests.fullScreen(home, port: server.port, nick: "bob", columns: 60, rows: 20)
        #expect(bob.waitFor { $0.joined().contains("bob joined") }, "\(bob.dump)")
        dave.write("read \(url) today\n")
        #expect(bob.waitFor { $0.joined().contains("today") }, "\(bob.dump)")
        // The rows of the URL after its first start at column 0: joined, they give it back whole.
        var screen = bob.screen()
        let first = try #require(screen.firstIndex { $0.contains("https://") }, "\(bob.dump)")
        // 60 columns: the message pane is 47 wide beside the member list's 12 and its separator.
        let pane = screen.map { String($0.prefix(47)) }
        let start = try #require(pane[first].range(of: "https://"))
        let cut = String(pane[first][start.lowerBound...]).trimmingCharacters(in: .whitespaces) + pane[first + 1]
        #expect(!pane[first + 1].hasPrefix(" ") && url.hasPrefix(cut), "\(bob.dump)")

        try DailyDriverTests.enter(bob, "/nicklist")
        #expect(bob.waitFor { !$0.joined().contains("Members") }, "\(bob.dump)")
        try DailyDriverTests.enter(bob, "/urls")
        #expect(bob.waitFor { $0.joined().contains("1 web address of lobby") }, "\(bob.dump)")
        screen = bob.screen()
        let listed = try #require(screen.firstIndex { $0.contains("<dave> https://") }, "\(bob.dump)")
        let joined = screen[listed].drop { $0 != "h" } + screen[(listed + 1)...].prefix { !$0.isEmpty && !$0.hasPrefix("[") && !$0.contains("─") }.joined()
        #expect(joined.trimmingCharacters(in: .whitespaces) == url, "\(bob.dump)")

        dave.write("/urls\n")
        #expect(dave.waitForLine(timeout: 10) { $0 == url } != nil, "\(dave.outputLines)")
    }
}
