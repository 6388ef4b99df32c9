import Testing

@testable import ChatTUI
import SplitMix

struct LineEditorViewportTests {
    /// Text shorter than the width is shown whole, with the cursor after it.
    @Test func shortTextIsShownWhole() {
        let viewport = makeEditor("hello").viewport(width: 10)
        #expect(String(viewport.characters) == "hello")
        #expect(viewport.cursorColumn == 5)
        #expect(viewport.firstIndex == 0)
    }

    /// Typing past the width scrolls so the cursor stays in the last column.
    @Test func typingPastTheWidthScrolls() {
        var editor = LineEditor()
        for character in "abcdefghijkl" {
            editor.insert(String(character))
            editor.scrollToCursor(width: 5)
        }
        let viewport = editor.viewport(width: 5)
        #expect(String(viewport.characters) == "ijkl")
        #expect(viewport.cursorColumn == 4)
    }

    /// Moving left inside the visible part does not move the text; leaving it does.
    @Test func scrollingIsSteady() {
        var editor = makeEditor("abcdefghijkl")
        editor.scrollToCursor(width: 5)
        editor.moveLeft()
        editor.moveLeft()
        editor.scrollToCursor(width: 5)
        #expect(editor.viewport(width: 5).firstIndex == 8)
        #expect(editor.viewport(width: 5).cursorColumn == 2)
        editor.moveToStart()
        editor.scrollToCursor(width: 5)
        let viewport = editor.viewport(width: 5)
        #expect(String(viewport.characters) == "abcde")
        #expect(viewport.cursorColumn == 0)
    }

    /// Deleting from a scrolled line brings hidden text back instead of leaving blank columns.
    @Test func deletingScrollsBack() {
        var editor = makeEditor("abcdefghijkl")
        editor.scrollToCursor(width: 5)
        for _ in 0..<8 { editor.deleteBackward() }
        editor.scrollToCursor(width: 5)
        #expect(String(editor.viewport(width: 5).characters) == "abcd")
    }

    /// Wide characters are never split: what is shown fits, and the cursor's cell is whole.
    @Test func wideCharactersAreNeverSplit() {
        var editor = makeEditor("中文字符测试")
        editor.scrollToCursor(width: 5)
        var viewport = editor.viewport(width: 5)
        #expect(String(viewport.characters) == "测试")
        #expect(viewport.cursorColumn == 4)
        editor.moveToStart()
        editor.scrollToCursor(width: 5)
        viewport = editor.viewport(width: 5)
        #expect(String(viewport.characters) == "中文")
        #expect(viewport.cursorColumn == 0)
    }

    /// A width of zero shows nothing; a width of one still shows the cursor on a wide character.
    @Test func tinyWidths() {
        var editor = makeEditor("中a")
        #expect(editor.viewport(width: 0).characters.isEmpty)
        #expect(editor.viewport(width: -3).cursorColumn == 0)
        editor.moveToStart()
        let viewport = editor.viewport(width: 1)
        #expect(viewport.characters.isEmpty)
        #expect(viewport.cursorColumn == 0)
    }

    /// Random edits at any width keep the shown part within the width and the cursor's glyph whole.
    @Test(arguments: [1, 2, 3, 5, 8, 13])
    func randomEditsKeepTheCursorVisible(width: Int) {
        var generator = SplitMix64(seed: UInt64(width))
        var editor = LineEditor()
        let pieces = ["a", "中", "👨‍👩‍👧", "e\u{301}", "🇫🇷", " ", "ｗ", "\u{301}"]
        for _ in 0..<400 {
            switch Int.random(in: 0..<8, using: &generator) {
            case 0, 1, 2: editor.insert(pieces.randomElement(using: &generator)!)
            case 3: editor.moveLeft()
            case 4: editor.moveRight()
            case 5: editor.deleteBackward()
            case 6: Bool.random(using: &generator) ? editor.moveToStart() : editor.moveToEnd()
            default: editor.deleteWordBeforeCursor()
            }
            editor.scrollToCursor(width: width)
            let viewport = editor.viewport(width: width)
            let shownWidth = viewport.characters.reduce(0) { $0 + LineEditor.columns(of: $1) }
            #expect(shownWidth <= width)
            #expect(viewport.cursorColumn < width)
            #expect(viewport.firstIndex <= editor.cursor)
            #expect(viewport.firstIndex + viewport.characters.count >= min(editor.cursor, editor.characters.count))
            if editor.cursor < editor.characters.count, LineEditor.columns(of: editor.characters[editor.cursor]) <= width {
                #expect(viewport.cursorColumn + LineEditor.columns(of: editor.characters[editor.cursor]) <= width)
            }
        }
    }
}
