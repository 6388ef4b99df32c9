import Testing

@testable import ChatTUI

struct LineEditorTests {
    /// Inserting puts text at the cursor and moves the cursor after it.
    @Test func insertAtCursor() {
        var editor = makeEditor("hllo")
        editor.moveToStart()
        editor.moveRight()
        editor.insert("e")
        #expect(editor.text == "hello")
        #expect(editor.cursor == 2)
    }

    /// Left and Right move by whole grapheme clusters, an emoji family or a flag being one step.
    @Test func cursorMovesByGrapheme() {
        var editor = makeEditor("a👨‍👩‍👧🇫🇷e\u{301}")
        #expect(editor.characters.count == 4)
        editor.moveLeft()
        #expect(editor.cursor == 3)
        editor.moveLeft()
        editor.moveLeft()
        #expect(editor.cursor == 1)
        #expect(editor.cursorColumn == 1)
        editor.moveRight()
        #expect(editor.cursorColumn == 3)
    }

    /// Left at the start and Right at the end stay put.
    @Test func cursorStopsAtEnds() {
        var editor = makeEditor("ab")
        editor.moveRight()
        #expect(editor.cursor == 2)
        editor.moveToStart()
        editor.moveLeft()
        #expect(editor.cursor == 0)
    }

    /// Home and End, and Ctrl-A and Ctrl-E through key handling, jump to the ends.
    @Test func homeAndEnd() {
        var editor = makeEditor("hello")
        #expect(editor.handle(.home) == .edited)
        #expect(editor.cursor == 0)
        #expect(editor.handle(.end) == .edited)
        #expect(editor.cursor == 5)
        _ = editor.handle(.control("a"))
        #expect(editor.cursor == 0)
        _ = editor.handle(.control("e"))
        #expect(editor.cursor == 5)
    }

    /// Ctrl-K cuts from the cursor to the end.
    @Test func killToEnd() {
        var editor = makeEditor("hello world")
        for _ in 0..<6 { editor.moveLeft() }
        _ = editor.handle(.control("k"))
        #expect(editor.text == "hello")
        #expect(editor.cursor == 5)
    }

    /// Ctrl-U cuts from the start to the cursor.
    @Test func killToStart() {
        var editor = makeEditor("hello world")
        for _ in 0..<5 { editor.moveLeft() }
        _ = editor.handle(.control("u"))
        #expect(editor.text == "world")
        #expect(editor.cursor == 0)
    }

    /// Ctrl-W cuts the word before the cursor and the spaces after it.
    @Test func deleteWordBeforeCursor() {
        var editor = makeEditor("/msg bob  hi there  ")
        _ = editor.handle(.control("w"))
        #expect(editor.text == "/msg bob  hi ")
        _ = editor.handle(.control("w"))
        #expect(editor.text == "/msg bob  ")
        editor.moveToStart()
        editor.deleteWordBeforeCursor()
        #expect(editor.text == "/msg bob  ")
    }

    /// Ctrl-W in the middle of a word cuts only the part before the cursor.
    @Test func deleteWordInsideWord() {
        var editor = makeEditor("hello world")
        editor.moveLeft()
        editor.moveLeft()
        editor.deleteWordBeforeCursor()
        #expect(editor.text == "hello ld")
        #expect(editor.cursor == 6)
    }

    /// Ctrl-Y puts back what the last cut removed.
    @Test func yankRestoresTheCut() {
        var editor = makeEditor("hello world")
        editor.deleteWordBeforeCursor()
        editor.moveToStart()
        _ = editor.handle(.control("y"))
        #expect(editor.text == "worldhello ")
    }

    /// Backspace deletes the whole cluster before the cursor, accents and ZWJ parts included.
    @Test func backspaceDeletesAWholeCluster() {
        var editor = makeEditor("ae\u{301}👨‍👩‍👧")
        _ = editor.handle(.backspace)
        #expect(editor.text == "ae\u{301}")
        _ = editor.handle(.backspace)
        #expect(editor.text == "a")
        editor.moveToStart()
        editor.deleteBackward()
        #expect(editor.text == "a")
    }

    /// Delete removes the cluster under the cursor and leaves the cursor in place.
    @Test func deleteForward() {
        var editor = makeEditor("a中b")
        editor.moveToStart()
        editor.moveRight()
        _ = editor.handle(.delete)
        #expect(editor.text == "ab")
        #expect(editor.cursor == 1)
        editor.moveToEnd()
        editor.deleteForward()
        #expect(editor.text == "ab")
    }

    /// A combining mark typed after a letter joins it into one cluster.
    @Test func combiningMarkJoinsThePreviousLetter() {
        var editor = makeEditor("e")
        editor.insert("\u{301}")
        #expect(editor.characters == ["e\u{301}"])
        #expect(editor.cursor == 1)
    }

    /// Inserting a regional indicator re-pairs the ones after it into flags.
    @Test func insertingARegionalIndicatorRepairsFlags() {
        var editor = makeEditor("\u{1F1F7}\u{1F1E9}\u{1F1EA}")
        #expect(editor.characters.count == 2)
        editor.moveToStart()
        editor.insert("\u{1F1EB}")
        #expect(editor.characters == ["🇫🇷", "🇩🇪"])
        #expect(editor.cursor == 1)
    }

    /// A paste keeps its line breaks (CR LF and CR become LF); typed text turns them into spaces;
    /// tabs become spaces; ESC, other controls and bidi characters are dropped.
    @Test func pastedTextIsSanitised() {
        var editor = LineEditor()
        _ = editor.handle(.paste("one\ntwo\r\nthree\tfour\u{1B}[31m\u{202E}\u{9B}\u{7}\rfive"))
        #expect(editor.text == "one\ntwo\nthree four[31m\nfive")
        var typed = LineEditor()
        typed.insert("one\ntwo\r\nthree\tfour")
        #expect(typed.text == "one two three four")
    }

    /// Keys that are not editing keys are left to the caller and change nothing.
    @Test(arguments: [KeyEvent.pageUp, .pageDown, .escape, .alt("1"), .control("c"), .insert, .backTab])
    func otherKeysAreIgnored(key: KeyEvent) {
        var editor = makeEditor("abc")
        let before = editor
        #expect(editor.handle(key) == .ignored)
        #expect(editor == before)
    }

    /// Typed text through key handling lands in the line.
    @Test func typedTextThroughKeys() {
        var editor = LineEditor()
        _ = editor.handle(.text("hé"))
        _ = editor.handle(.text("llo"))
        #expect(editor.text == "héllo")
    }
}
