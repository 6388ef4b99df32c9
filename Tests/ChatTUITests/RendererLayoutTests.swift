import Testing

@testable import ChatTUI

struct RendererLayoutTests {
    /// At 80x24: status bar, bottom-aligned messages, member list, typing line and input line.
    @Test func layoutAt80x24() {
        let (frame, screen, _) = renderOnScreen(sampleModel(), editor: makeEditor("draft"), size: TerminalSize(columns: 80, rows: 24))
        let lines = screen.textLines
        #expect(lines[0].hasPrefix(" qchat.example | alice | [1:lobby] 2:dev(3)"))
        #expect(lines[0].hasSuffix("connected | rtt 23 ms"))
        #expect(text(of: screen.frame, row: 19, columns: 0..<63) == "12:34 <bob> hello alice")
        #expect(text(of: screen.frame, row: 20, columns: 0..<63) == "12:35 <alice> hi bob")
        #expect(text(of: screen.frame, row: 21, columns: 0..<63) == "12:36 -- carol joined")
        #expect(text(of: screen.frame, row: 18, columns: 0..<63) == "")
        #expect((1..<22).allSatisfy { text(of: screen.frame, row: $0, columns: 63..<64) == "|" })
        #expect(text(of: screen.frame, row: 1, columns: 64..<80) == " Members (3)")
        #expect(text(of: screen.frame, row: 2, columns: 64..<80) == " alice")
        #expect(text(of: screen.frame, row: 3, columns: 64..<80) == " bob")
        #expect(text(of: screen.frame, row: 4, columns: 64..<80) == "~carol")
        #expect(lines[22] == "bob is typing…")
        #expect(lines[23] == "[lobby] draft")
        #expect(screen.visibleCursor == CursorPosition(row: 23, column: 13))
        #expect(screen.frame == frame)
        #expect(screen.violations.isEmpty)
    }

    /// At 120x40 the member list is 24 columns wide and the messages sit above the typing line.
    @Test func layoutAt120x40() {
        let (frame, screen, _) = renderOnScreen(sampleModel(), editor: LineEditor(), size: TerminalSize(columns: 120, rows: 40))
        #expect(text(of: screen.frame, row: 37, columns: 0..<95) == "12:36 -- carol joined")
        #expect(text(of: screen.frame, row: 10, columns: 95..<96) == "|")
        #expect(text(of: screen.frame, row: 1, columns: 96..<120) == " Members (3)")
        #expect(screen.textLines[38] == "bob is typing…")
        #expect(screen.textLines[39] == "[lobby]")
        #expect(screen.visibleCursor == CursorPosition(row: 39, column: 8))
        #expect(screen.frame == frame)
    }

    /// At 40x10: no member list, no RTT, no server name (the rooms and their counts need the
    /// room), and a long message wrapped at words with a hanging indent.
    @Test func layoutAt40x10() {
        var model = sampleModel()
        model.append(ChatLine(timestamp: sampleTime, nick: "bob", text: String(repeating: "word ", count: 12), kind: .message),
                     to: "lobby")
        let (_, screen, _) = renderOnScreen(model, editor: makeEditor("hi"), size: TerminalSize(columns: 40, rows: 10))
        let lines = screen.textLines
        #expect(lines[0] == " alice | [1:lobby] 2:dev(3)   connected")
        #expect(lines[5] == "12:36 -- carol joined")
        #expect(lines[6] == "12:34 <bob> word word word word word")
        #expect(lines[7] == "      word word word word word word word")
        #expect(lines[8] == "bob is typing…")
        #expect(lines[9] == "[lobby] hi")
        #expect(!lines.contains { $0.contains("|") && $0.contains("Members") })
    }

    /// At 10x3 the status bar (the current room), one message row and the input line still show.
    @Test func layoutAt10x3() {
        let (frame, screen, _) = renderOnScreen(sampleModel(), editor: makeEditor("draft"), size: TerminalSize(columns: 10, rows: 3))
        #expect(screen.textLines == [" [1:lobby]", "joined", "> draft"])
        #expect(screen.visibleCursor == CursorPosition(row: 2, column: 7))
        #expect(screen.frame == frame)
        #expect(screen.violations.isEmpty)
    }

    /// Zero and negative sizes give an empty frame with no cursor, and empty-screen output.
    @Test(arguments: [(0, 0), (-5, -5), (0, 24), (80, 0), (-1, 10)])
    func degenerateSizes(columns: Int, rows: Int) {
        let size = TerminalSize(columns: columns, rows: rows)
        let (frame, screen, _) = renderOnScreen(sampleModel(), editor: makeEditor("x"), size: size)
        #expect(frame.cells.isEmpty)
        #expect(frame.cursor == nil)
        #expect(screen.violations.isEmpty)
    }

    /// Every small size renders without trapping, and full output reproduces the frame exactly.
    @Test func everySmallSizeRenders() {
        var model = sampleModel()
        model.append(ChatLine(timestamp: sampleTime, nick: "李", text: "中文👨‍👩‍👧🇫🇷e\u{301} wide text", kind: .message), to: "lobby")
        let editor = makeEditor("中文 typing 🇫🇷")
        for columns in 0...70 {
            for rows in 0...7 {
                let (frame, screen, _) = renderOnScreen(model, editor: editor, size: TerminalSize(columns: columns, rows: rows))
                #expect(screen.frame == frame, "\(columns)x\(rows)")
                #expect(screen.visibleCursor == frame.cursor, "\(columns)x\(rows)")
                #expect(screen.violations.isEmpty, "\(columns)x\(rows): \(screen.violations)")
            }
        }
    }

    /// A 1-row terminal shows only the input line; a 2-row one adds the status bar.
    @Test func oneAndTwoRows() {
        let one = renderOnScreen(sampleModel(), editor: makeEditor("ab"), size: TerminalSize(columns: 30, rows: 1)).screen
        #expect(one.textLines == ["[lobby] ab"])
        let two = renderOnScreen(sampleModel(), editor: makeEditor("ab"), size: TerminalSize(columns: 30, rows: 2)).screen
        #expect(two.textLines[1] == "[lobby] ab")
        #expect(two.textLines[0].hasPrefix(" [1:lobby] 2(3) "))
    }
}
