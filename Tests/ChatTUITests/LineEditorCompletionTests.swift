import Testing

@testable import ChatTUI

struct LineEditorCompletionTests {
    let candidates = CompletionCandidates(nicks: ["alice", "Albert", "bob"], commands: ["/join", "/part", "/nick", "/msg"])

    /// A nick completed at the start of the line is addressed with ": ".
    @Test func nickAtLineStartGetsColon() {
        var editor = makeEditor("bo")
        _ = editor.handle(.tab, candidates: candidates)
        #expect(editor.text == "bob: ")
        #expect(editor.cursor == 5)
    }

    /// A nick completed later in the line is followed by a space only, and text after the cursor stays.
    @Test func nickInsideLineGetsSpace() {
        var editor = makeEditor("hi bo and more")
        for _ in 0..<9 { editor.moveLeft() }
        editor.complete(from: candidates)
        #expect(editor.text == "hi bob  and more")
        #expect(editor.cursor == 7)
    }

    /// Repeated Tab cycles through matches case-insensitively, in candidate order, wrapping around.
    @Test func repeatedTabCycles() {
        var editor = makeEditor("AL")
        editor.complete(from: candidates)
        #expect(editor.text == "alice: ")
        editor.complete(from: candidates)
        #expect(editor.text == "Albert: ")
        editor.complete(from: candidates)
        #expect(editor.text == "alice: ")
    }

    /// A slash word at the line start completes commands.
    @Test func commandsComplete() {
        var editor = makeEditor("/j")
        editor.complete(from: candidates)
        #expect(editor.text == "/join ")
    }

    /// Any other key ends the cycle: the next Tab completes the new word.
    @Test func otherKeyEndsTheCycle() {
        var editor = makeEditor("al")
        editor.complete(from: candidates)
        _ = editor.handle(.text("x"))
        #expect(editor.text == "alice: x")
        #expect(!editor.isCompleting)
        editor.complete(from: candidates)
        #expect(editor.text == "alice: x")
    }

    /// Without a match, or without a word before the cursor, Tab changes nothing.
    @Test func noMatchChangesNothing() {
        var editor = makeEditor("zed")
        editor.complete(from: candidates)
        #expect(editor.text == "zed")
        var blank = makeEditor("hi ")
        blank.complete(from: candidates)
        #expect(blank.text == "hi ")
        #expect(!blank.isCompleting)
    }

    /// Candidates from the network are sanitised before they enter the line.
    @Test func candidatesAreSanitised() {
        var editor = makeEditor("ev")
        editor.complete(from: CompletionCandidates(nicks: ["ev\u{1B}[2Jil"]))
        #expect(editor.text == "ev[2Jil: ")
    }
}
