extension LineEditor {
    /// Applies one decoded key with the usual readline/emacs bindings. `candidates` is only read
    /// for Tab.
    public mutating func handle(_ key: KeyEvent, candidates: CompletionCandidates = CompletionCandidates()) -> EditorAction {
        switch key {
        case .text(let typed):
            insert(typed)
        case .paste(let pasted):
            insert(pasted, keepingLineBreaks: true)
        case .enter:
            guard let line = submit() else { return .ignored }
            return .submitted(line)
        case .tab:
            complete(from: candidates)
        case .backspace:
            deleteBackward()
        case .delete:
            deleteForward()
        case .left, .control("b"):
            moveLeft()
        case .right, .control("f"):
            moveRight()
        case .home, .control("a"):
            moveToStart()
        case .end, .control("e"):
            moveToEnd()
        case .up, .control("p"):
            showPreviousHistoryEntry()
        case .down, .control("n"):
            showNextHistoryEntry()
        case .control("k"):
            killToEnd()
        case .control("u"):
            killToStart()
        case .control("w"):
            deleteWordBeforeCursor()
        case .control("y"):
            yank()
        case .alt("b"), .wordLeft:
            moveWordLeft()
        case .alt("f"), .wordRight:
            moveWordRight()
        case .alt("d"):
            deleteWordAfterCursor()
        case .altBackspace:
            deleteWordBeforeCursorByLetters()
        case .control("t"):
            transposeCharacters()
        default:
            return .ignored
        }
        return .edited
    }
}
