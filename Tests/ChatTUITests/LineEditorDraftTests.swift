import Testing

@testable import ChatTUI

/// Issue 24: the history of an earlier run comes first, and a buffer's draft is kept apart.
struct LineEditorDraftTests {
    @Test func restoredHistoryComesBeforeThisRun() {
        var editor = LineEditor(historyLimit: 3)
        editor.insert("typed now")
        _ = editor.submit()
        editor.restoreHistory(["one", "two", "three"])
        #expect(editor.history == ["two", "three", "typed now"])
        editor.showPreviousHistoryEntry()
        editor.showPreviousHistoryEntry()
        #expect(editor.text == "three")
    }

    /// The draft under a history entry being browsed is what a buffer keeps; showing another
    /// draft leaves history browsing.
    @Test func draftsAreWhatWasBeingTyped() {
        var editor = LineEditor()
        editor.insert("old")
        _ = editor.submit()
        editor.insert("half a thought")
        editor.showPreviousHistoryEntry()
        #expect(editor.text == "old" && editor.unsentText == "half a thought")
        editor.showDraft("another buffer's words")
        #expect(editor.text == "another buffer's words" && !editor.isBrowsingHistory && editor.cursor == 22)
    }
}
