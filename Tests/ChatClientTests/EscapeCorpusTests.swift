import Foundation
import TestSupport
import Testing

/// Scenario 11 (issue 6): the escape-injection corpus against the real full-screen client under
/// tmux. Whatever arrives, the terminal's modes, title, scroll region and cursor stay as the
/// client set them, the layout stays whole, and every message is shown as visible text.
@Suite("Escape-injection corpus against the TUI", .serialized)
struct EscapeCorpusTests {
    static let columns = 220, rows = 100

    /// What the client's terminal looks like with nothing hostile on it, to compare against.
    struct Baseline {
        let state: String
        let cursor: (column: Int, row: Int)

        init(_ session: TmuxSession) {
            state = session.terminalState()
            cursor = session.cursor()
        }
    }

    /// The terminal is as the client left it, and the screen shows every entry between its markers.
    private func expectIntact(_ session: TmuxSession, _ baseline: Baseline, showing entries: [EscapeCorpus.Entry],
                              sourceLocation: SourceLocation = #_sourceLocation) {
        let screen = session.screen()
        let text = screen.joined(separator: "\n")
        #expect(session.terminalState() == baseline.state, sourceLocation: sourceLocation)
        // The cursor stays on the input line, right after the prompt (whose room name can change).
        let cursor = session.cursor(), row = screen.indices.contains(cursor.row) ? screen[cursor.row] : ""
        let inputLine = row.padding(toLength: max(row.count, cursor.column), withPad: " ", startingAt: 0)
        #expect(cursor.row == baseline.cursor.row, "cursor moved to \(cursor)", sourceLocation: sourceLocation)
        #expect(inputLine.prefix(cursor.column).hasSuffix("] ") && inputLine.dropFirst(cursor.column).allSatisfy { $0 == " " },
                "cursor at \(cursor) on '\(inputLine)'", sourceLocation: sourceLocation)
        #expect(!session.title().contains("pwned"), sourceLocation: sourceLocation)
        #expect(screen.first?.contains("bob") == true, "status bar: \(screen.first ?? "")", sourceLocation: sourceLocation)
        #expect(text.contains("Members"), sourceLocation: sourceLocation)
        var previous = text.startIndex
        for entry in entries {
            let start = text.range(of: entry.startMarker + " ", range: previous..<text.endIndex)
            #expect(start != nil, "\(entry.startMarker) (\(entry.name)) not shown in order", sourceLocation: sourceLocation)
            guard let start else { continue }
            #expect(text[start.upperBound...].contains(" " + entry.endMarker), "\(entry.endMarker) (\(entry.name)) missing",
                    sourceLocation: sourceLocation)
            previous = start.upperBound
        }
    }

    /// A bot sends the whole corpus as JSON through the server (which strips C0, ESC and C1 from
    /// `msg` text), then a second bot sends invalid UTF-8 (which the server closes it for).
    @Test func corpusFromABotLeavesTheTerminalAlone() throws {
        let server = try ChatServerProcess(["--flood-burst", "100", "--flood-rate", "100"])
        defer { server.stop() }
        let bob = try TmuxSession(command: TerminalUITests.clientCommand(port: server.port, nick: "bob"), columns: Self.columns, rows: Self.rows)
        #expect(bob.waitFor { $0.joined().contains("bob joined") })
        // The title names the server once its welcome is rendered, which a slow (sanitized)
        // client may do after the join is on screen: the baseline is the settled terminal.
        #expect(waitForState(timeout: 20) { bob.terminalState().contains("pane_title=qchat: bob@qchat") }, "\(bob.terminalState())")
        let baseline = Baseline(bob)

        let lines = EscapeCorpus.entries.map {
            #"  send-raw {"type":"msg","room":"lobby","id":"corpus-\#($0.number)","text":"\#(EscapeCorpus.jsonEscaped($0.text))"}"#
        }
        let script = (["bot mallory lobby {"] + lines + ["  say END-OF-CORPUS", "  quit", "}",
                       "bot eve lobby {", "  expect msg from mallory \"END-OF-CORPUS\" within 20s",
                       #"  send-raw {"type":"msg","room":"lobby","id":"bad-utf8","text":"C99 \xff\xfe \xc0\xaf E99"}"#,
                       "  wait 10s", "}"]).joined(separator: "\n")
        let bots = try runBotScript(script, port: server.port)
        let shown = bob.waitFor(timeout: 20) { $0.joined().contains("END-OF-CORPUS") }
        #expect(shown, "\(bots.finish(timeout: 1))\n\(bob.screen().joined(separator: "\n"))")
        #expect(bob.waitFor(timeout: 20) { $0.contains { $0.contains("eve") && $0.contains("left") } })
        _ = bots.finish(timeout: 20)

        expectIntact(bob, baseline, showing: EscapeCorpus.entries)
        #expect(!bob.screen().joined().contains("C99"), "the invalid UTF-8 message was delivered")
        // What the server lets through is shown as visible placeholders.
        let screen = bob.screen().joined()
        for placeholder in ["<U+202E>", "<U+2066>", "<U+200F>", "<U+3164>", "<U+115F>", "<U+2028>", "<U+FEFF>"] {
            #expect(screen.contains(placeholder), "\(placeholder) not shown")
        }
    }

    /// A hostile server (here: a history database written by hand, which the server replays as it
    /// stands) delivers the control characters raw; the client alone must neutralise them.
    @Test func rawControlsFromTheServerAreNeutralisedByTheClient() throws {
        let database = temporaryDatabasePath()
        defer { try? FileManager.default.removeItem(atPath: database) }
        try ChatServerProcess(["--db", database]).stop()
        let raw = EscapeCorpus.entries.filter(\.hasControls)
        let rooms = [("lobby", Array(raw.prefix(raw.count / 2))), ("dev", Array(raw.dropFirst(raw.count / 2)))]
        var sql = "BEGIN;\n"
        for (room, entries) in rooms {
            for (seq, entry) in entries.enumerated() {
                sql += "INSERT INTO events (room, seq, ts, kind, sender, text, msg_id) VALUES ('\(room)', \(seq + 1), "
                    + "1764480000000, 'msg', 'ghost', CAST(X'\(EscapeCorpus.sqliteHex(entry.text))' AS TEXT), 'raw-\(entry.number)');\n"
            }
        }
        try runSQLite(database, sql + "COMMIT;\n")

        let server = try ChatServerProcess(["--db", database])
        defer { server.stop() }
        let bob = try TmuxSession(command: TerminalUITests.clientCommand(port: server.port, nick: "bob"), columns: Self.columns, rows: Self.rows)
        #expect(bob.waitFor { $0.joined().contains("bob joined") })
        let lobby = rooms[0].1, dev = rooms[1].1
        // The client's own rendering of what it neutralised: caret notation and code points.
        func expectShown(_ visible: [String], sourceLocation: SourceLocation = #_sourceLocation) {
            let shown = bob.screen().joined()
            for text in visible { #expect(shown.contains(text), "\(text) not shown", sourceLocation: sourceLocation) }
        }
        #expect(bob.waitFor { screen in lobby.allSatisfy { screen.joined().contains($0.endMarker) } })
        let baseline = Baseline(bob)
        expectIntact(bob, baseline, showing: lobby)
        expectShown(["^[[2J^[[H", "^[]0;pwned^G", "^[]52;c;"])

        try bob.type("/join dev")
        try bob.press("Enter")
        #expect(bob.waitFor { screen in dev.allSatisfy { screen.joined().contains($0.endMarker) } })
        expectIntact(bob, baseline, showing: dev)
        expectShown(["<U+009B>2J", "^H^H^Hback^Mreturn^Kvt^Lff^Gbell^?del^@nul", "^[Ptmux;^[^[]0;pwned"])
    }
}
