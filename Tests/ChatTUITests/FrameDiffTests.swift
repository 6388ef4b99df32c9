import Testing

@testable import ChatTUI
import SplitMix

struct FrameDiffTests {
    /// A frame of `text` rows with the cursor at the end of the last one.
    func frame(_ rows: [String], columns: Int, style: CellStyle = .plain) -> Frame {
        var frame = Frame(size: TerminalSize(columns: columns, rows: rows.count))
        for (row, text) in rows.enumerated() {
            frame.write(Glyph.glyphs(text, style: style), row: row, column: 0, limit: columns)
        }
        frame.cursor = CursorPosition(row: rows.count - 1, column: min(columns - 1, DisplayWidth.columns(of: rows.last!)))
        return frame
    }

    /// Identical frames produce no output at all.
    @Test func identicalFramesProduceNothing() {
        let first = frame(["hello", "world"], columns: 10)
        #expect(FrameDiff.bytes(from: first, to: first).isEmpty)
    }

    /// One changed cell costs one cursor move, one SGR and the glyph, then the cursor returns.
    @Test func oneChangedCell() {
        let before = frame(["hello", "world"], columns: 10)
        var after = before
        after.put("J", width: 1, style: .plain, row: 0, column: 0)
        let bytes = FrameDiff.bytes(from: before, to: after)
        #expect(String(decoding: bytes, as: UTF8.self) == "\u{1B}[1;1H\u{1B}[0mJ\u{1B}[2;6H")
    }

    /// SGR is sent only when the style changes along a run.
    @Test func styleIsSentOnlyOnChange() {
        var next = Frame(size: TerminalSize(columns: 20, rows: 1))
        next.write(Glyph.glyphs("aaaa", style: CellStyle(foreground: 2)), row: 0, column: 0, limit: 20)
        next.write(Glyph.glyphs("bbbb", style: CellStyle(bold: true)), row: 0, column: 4, limit: 20)
        let bytes = FrameDiff.bytes(from: nil, to: next)
        let sgr = escapeSequences(in: bytes).filter { $0.hasSuffix("m") }
        #expect(sgr == ["[0m", "[0;32m", "[0;1m", "[0m"])
    }

    /// The cursor is shown when it appears and hidden when it goes.
    @Test func cursorVisibilityFollowsTheFrame() {
        let visible = frame(["ab"], columns: 5)
        var hidden = visible
        hidden.cursor = nil
        #expect(String(decoding: FrameDiff.bytes(from: visible, to: hidden), as: UTF8.self) == "\u{1B}[?25l")
        #expect(String(decoding: FrameDiff.bytes(from: hidden, to: visible), as: UTF8.self) == "\u{1B}[1;3H\u{1B}[?25h")
        var screen = VirtualScreen(size: visible.size)
        screen.apply(FrameDiff.bytes(from: nil, to: hidden))
        #expect(!screen.isCursorVisible)
    }

    /// Set-up and restore switch the alternate screen, bracketed paste and the cursor, and nothing else.
    @Test func setUpAndRestore() {
        var screen = VirtualScreen(size: TerminalSize(columns: 10, rows: 3))
        screen.apply(TerminalControl.setUp)
        #expect(screen.isAlternateScreenActive)
        #expect(screen.isBracketedPasteEnabled)
        #expect(!screen.isCursorVisible)
        screen.apply(FrameDiff.bytes(from: nil, to: frame(["x"], columns: 10)))
        screen.apply(TerminalControl.restore)
        #expect(!screen.isAlternateScreenActive)
        #expect(!screen.isBracketedPasteEnabled)
        #expect(screen.isCursorVisible)
        #expect(screen.textLines == ["", "", ""])
        #expect(screen.violations.isEmpty)
    }

    /// Wide glyphs overwritten by narrow ones, or shifted by a column, end up exactly as the frame says.
    @Test(arguments: [
        (["中文字", "ab"], ["a中文", "中"]),
        (["abcdef", "x"], ["中文字", "xy"]),
        (["中文字", ""], ["abcdef", "z"]),
        (["a中b", "🇫🇷x"], ["中b", "x🇫🇷"]),
        (["👨‍👩‍👧e\u{301}z", ""], ["é👨‍👩‍👧z", "q"]),
    ])
    func wideGlyphTransitions(before: [String], after: [String]) {
        let first = frame(before, columns: 6)
        let second = frame(after, columns: 6)
        var screen = VirtualScreen(size: first.size)
        screen.apply(FrameDiff.bytes(from: nil, to: first))
        #expect(screen.frame == first)
        screen.apply(FrameDiff.bytes(from: first, to: second))
        #expect(screen.frame == second)
        #expect(screen.violations.isEmpty)
    }

    /// Diffs between random frames with wide and complex glyphs always reproduce the target.
    @Test(arguments: [1, 2, 3, 4])
    func randomFramesDiffCorrectly(seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        let glyphs: [Character] = ["a", "b", " ", "中", "文", "😀", "🇫🇷", "👨‍👩‍👧", "e\u{301}", "Ｚ", "\u{25CC}\u{301}"]
        let styles = [CellStyle.plain, CellStyle(foreground: 2), CellStyle(bold: true), CellStyle(foreground: 200, reverse: true)]
        let size = TerminalSize(columns: 9, rows: 4)
        var screen = VirtualScreen(size: size)
        var previous: Frame?
        for _ in 0..<300 {
            var next = previous ?? Frame(size: size)
            for _ in 0..<Int.random(in: 0...12, using: &generator) {
                let character = glyphs.randomElement(using: &generator)!
                next.put(character, width: DisplayWidth.columns(of: character), style: styles.randomElement(using: &generator)!,
                         row: Int.random(in: 0..<size.rows, using: &generator),
                         column: Int.random(in: 0..<size.columns, using: &generator))
            }
            next.cursor = Bool.random(using: &generator)
                ? CursorPosition(row: Int.random(in: 0..<size.rows, using: &generator), column: Int.random(in: 0..<size.columns, using: &generator))
                : nil
            screen.apply(FrameDiff.bytes(from: previous, to: next))
            #expect(screen.frame == next)
            previous = next
        }
        #expect(screen.violations.isEmpty, "\(screen.violations)")
    }

    /// On a terminal that measures emoji sequences wider than we do, later cells still land in place.
    @Test func disagreeingTerminalStaysAligned() {
        let next = frame(["👨‍👩‍👧 after 🇫🇷 x e\u{301}y"], columns: 24)
        var screen = VirtualScreen(size: next.size)
        screen.cursorAdvance = { character in
            character.unicodeScalars.reduce(0) { $0 + DisplayWidth.columns(of: $1) } + (character.unicodeScalars.count > 1 ? 1 : 0)
        }
        screen.apply(FrameDiff.bytes(from: nil, to: next))
        #expect(screen.frame == next)
    }
}
