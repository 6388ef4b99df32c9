import Testing

@testable import ChatTUI

struct LineEditorHistoryTests {
    /// Enter returns the line, empties the editor and records the line in history.
    @Test func submitReturnsAndClears() {
        var editor = makeEditor("hello")
        #expect(editor.handle(.enter) == .submitted("hello"))
        #expect(editor.isEmpty)
        #expect(editor.cursor == 0)
        #expect(editor.history == ["hello"])
    }

    /// Enter on an empty line sends nothing.
    @Test func emptySubmitIsIgnored() {
        var editor = LineEditor()
        #expect(editor.submit() == nil)
        #expect(editor.handle(.enter) == .ignored)
        #expect(editor.history.isEmpty)
    }

    /// Up walks back through history, Down forward, and past the newest entry the draft returns.
    @Test func upAndDownKeepTheDraft() {
        var editor = LineEditor()
        for line in ["first", "second"] {
            editor.insert(line)
            _ = editor.submit()
        }
        editor.insert("draft")
        _ = editor.handle(.up)
        #expect(editor.text == "second")
        #expect(editor.cursor == 6)
        _ = editor.handle(.up)
        #expect(editor.text == "first")
        _ = editor.handle(.up)
        #expect(editor.text == "first")
        _ = editor.handle(.down)
        #expect(editor.text == "second")
        _ = editor.handle(.down)
        #expect(editor.text == "draft")
        #expect(!editor.isBrowsingHistory)
        _ = editor.handle(.down)
        #expect(editor.text == "draft")
    }

    /// Up with an empty history changes nothing.
    @Test func upWithoutHistory() {
        var editor = makeEditor("draft")
        editor.showPreviousHistoryEntry()
        #expect(editor.text == "draft")
        #expect(!editor.isBrowsingHistory)
    }

    /// A recalled line can be edited and sent; the draft is then gone.
    @Test func recalledLineCanBeSent() {
        var editor = LineEditor()
        editor.insert("hello")
        _ = editor.submit()
        editor.insert("draft")
        editor.showPreviousHistoryEntry()
        editor.insert("!")
        #expect(editor.submit() == "hello!")
        #expect(editor.history == ["hello", "hello!"])
        editor.showNextHistoryEntry()
        #expect(editor.isEmpty)
    }

    /// Repeating the newest entry does not add it twice; the history keeps only its limit.
    @Test func historyDeduplicatesAndIsBounded() {
        var editor = LineEditor(historyLimit: 3)
        for line in ["a", "a", "b", "c", "d"] {
            editor.insert(line)
            _ = editor.submit()
        }
        #expect(editor.history == ["b", "c", "d"])
    }
}
