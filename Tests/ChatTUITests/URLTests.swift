import Testing

@testable import ChatTUI

/// Issue 24, URLs: found whole, never indented inside when cut across rows, listed by /urls.
struct URLTests {
    @Test func urlsAreFoundWhole() {
        #expect(URLFinder.urls(in: "see https://example.org/a?b=1&c=%20#x, then") == ["https://example.org/a?b=1&c=%20#x"])
        #expect(URLFinder.urls(in: "(see https://en.wikipedia.org/wiki/Foo_(bar).)") == ["https://en.wikipedia.org/wiki/Foo_(bar)"])
        #expect(URLFinder.urls(in: "two: http://a.example and FTP://b.example/x.") == ["http://a.example", "FTP://b.example/x"])
        #expect(URLFinder.urls(in: "no https:// alone, nor xhttps://a.example, nor mailto:a@b") == [])
        #expect(URLFinder.urls(in: "'https://q.example/é' ends at the é") == ["https://q.example/"])
    }

    /// A URL longer than the pane: its rows after the first start at the first column, while
    /// the text around it keeps the indent under the timestamp.
    @Test func aURLCutAcrossRowsHasNoIndentInside() {
        let url = "https://example.org/" + String(repeating: "abcdefghij", count: 8)
        let line = ChatLine(timestamp: sampleTime, nick: "bob", text: "look " + url + " and some words after it here", kind: .message)
        let formatter = MessageFormatter(colors: false, utcOffsetSeconds: 0, timestamp: .minutes)
        let rows = formatter.rows(for: line, width: 40)
        let bodies = rows.map { String($0.glyphs.map(\.character)) }
        #expect(bodies[0] == "12:34 <bob> look ", "\(bodies)")
        #expect(bodies[1] + bodies[2] + String(bodies[3].prefix { $0 != " " }) == url, "\(bodies)")
        #expect(rows[1].indent == 6 && rows[2].indent == 0, "\(rows.map(\.indent))")
        #expect(rows.last?.indent == 6, "\(rows.map(\.indent))")
    }

    @Test func urlsListsEveryAddressOfTheBuffer() {
        var model = sampleModel()
        model.append(ChatLine(timestamp: sampleTime, nick: "carol", text: "docs at https://a.example/x and https://b.example", kind: .message), to: "lobby")
        model.append(ChatLine(timestamp: sampleTime + 1, nick: "bob", text: "/me likes http://c.example", kind: .message, isAction: true), to: "lobby")
        #expect(model.showURLs() == 3)
        #expect(model.currentRoom?.name == "=urls")
        #expect(model.currentRoom?.lines.filter { !$0.isRule }.map(\.text) == ["3 web addresses of lobby (/close closes this view)",
                                                                            "https://a.example/x", "https://b.example", "http://c.example"])
        let screen = renderOnScreen(model, editor: makeEditor(""), size: TerminalSize(columns: 100, rows: 20)).screen.textLines
        #expect(screen.contains { $0.hasPrefix("12:34 <carol> https://a.example/x") }, "\(screen)")
    }

    @Test func theMemberListCanBeHidden() {
        var model = sampleModel()
        let size = TerminalSize(columns: 100, rows: 20)
        #expect(renderOnScreen(model, editor: makeEditor(""), size: size).screen.textLines.joined().contains("Members"))
        model.showsMemberList = false
        let long = "x" + String(repeating: "y", count: 90)
        model.append(ChatLine(timestamp: sampleTime, nick: "bob", text: long, kind: .message), to: "lobby")
        let screen = renderOnScreen(model, editor: makeEditor(""), size: size).screen.textLines
        #expect(!screen.joined().contains("Members"))
        #expect(screen.contains { $0.hasSuffix(String(long.prefix(100 - 12))) }, "\(screen)")
    }
}

/// OSC 8 (issue 24, URLs): the cells of a web address link to it, so a terminal opens it whole
/// however it was cut across rows; the link is closed before anything else is written.
struct HyperlinkTests {
    @Test func addressesAreLinked() {
        var model = sampleModel()
        let url = "https://example.org/" + String(repeating: "long/", count: 20)
        model.append(ChatLine(timestamp: sampleTime, nick: "carol", text: "see \(url) now", kind: .message), to: "lobby")
        let (frame, screen, bytes) = renderOnScreen(model, editor: makeEditor(""), size: TerminalSize(columns: 60, rows: 20))
        let sequences = escapeSequences(in: bytes)
        // Opened on each row the address takes (the member pane is written between), closed after each.
        let rows = Set((0..<frame.rows).filter { row in (0..<frame.columns).contains { frame[row, $0].style.link == url } }).count
        #expect(rows == 3)
        #expect(sequences.filter { $0.hasPrefix("]8;;") } == Array(repeating: ["]8;;" + url, "]8;;"], count: rows).flatMap { $0 },
                "\(sequences.filter { $0.hasPrefix("]") })")
        #expect(screen.violations.isEmpty, "\(screen.violations)")
        #expect(screen.frame == frame)
        let linked = frame.cells.filter { $0.style.link == url }.count
        #expect(linked == url.count, "\(linked)")
        #expect(frame.cells.filter { $0.style.link != nil && $0.style.link != url }.isEmpty)
    }
}
