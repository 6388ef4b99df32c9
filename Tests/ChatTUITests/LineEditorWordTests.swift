import Testing

@testable import ChatTUI

/// Word-wise editing (issue 24, habits): readline's Alt-B, Alt-F, Alt-D, Alt-Backspace, Ctrl-T, and
/// Ctrl-Left/Ctrl-Right as terminals send them.
struct LineEditorWordTests {
    static func editor(_ text: String, cursor: Int) -> LineEditor {
        var editor = makeEditor(text)
        editor.cursor = cursor
        return editor
    }

    @Test func movesAWordAtATime() {
        var editor = Self.editor("deploy the-new build", cursor: 20)
        _ = editor.handle(.alt("b"))
        #expect(editor.cursor == 15)
        _ = editor.handle(.wordLeft)
        #expect(editor.cursor == 11)
        _ = editor.handle(.alt("b"))
        #expect(editor.cursor == 7)
        _ = editor.handle(.alt("f"))
        #expect(editor.cursor == 10)
        _ = editor.handle(.wordRight)
        #expect(editor.cursor == 14)
    }

    @Test func cutsWordsAndPastesThemBack() {
        var editor = Self.editor("deploy the-new build", cursor: 7)
        _ = editor.handle(.alt("d"))
        #expect(editor.text == "deploy -new build" && editor.cursor == 7)
        _ = editor.handle(.control("y"))
        #expect(editor.text == "deploy the-new build")
        var back = Self.editor("deploy the-new build", cursor: 14)
        _ = back.handle(.altBackspace)
        #expect(back.text == "deploy the- build" && back.cursor == 11)
    }

    @Test func transposes() {
        var editor = Self.editor("teh", cursor: 2)
        _ = editor.handle(.control("t"))
        #expect(editor.text == "the" && editor.cursor == 3)
        var atEnd = Self.editor("ab", cursor: 2)
        _ = atEnd.handle(.control("t"))
        #expect(atEnd.text == "ba")
    }

    /// xterm's `CSI 1;5D`/`CSI 1;5C` (Ctrl) and `CSI 1;3D` (Alt), rxvt's `ESC O d`/`ESC O c`, and
    /// ESC DEL are the word keys; a plain arrow stays an arrow.
    @Test func decodesTheWordKeys() {
        var decoder = KeyDecoder()
        #expect(decoder.feed(Array("\u{1B}[1;5D\u{1B}[1;5C\u{1B}[1;3D\u{1B}Od\u{1B}Oc\u{1B}\u{7F}\u{1B}[D".utf8))
                    == [.wordLeft, .wordRight, .wordLeft, .wordLeft, .wordRight, .altBackspace, .left])
    }
}
