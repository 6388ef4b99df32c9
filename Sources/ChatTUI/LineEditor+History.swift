extension LineEditor {
    /// Enter: returns the line and empties the editor, or nil when the line is empty. A non-empty
    /// line goes into the history unless it repeats the newest entry.
    public mutating func submit() -> String? {
        let line = text
        clear()
        historyPosition = nil
        draft = ""
        guard !line.isEmpty else { return nil }
        if history.last != line {
            history.append(line)
        }
        if history.count > historyLimit {
            history.removeFirst(history.count - historyLimit)
        }
        return line
    }

    /// Up: shows the previous history entry; the first press keeps the unsent draft.
    public mutating func showPreviousHistoryEntry() {
        completion = nil
        guard !history.isEmpty else { return }
        let position: Int
        switch historyPosition {
        case nil:
            draft = text
            position = history.count - 1
        case let current? where current > 0:
            position = current - 1
        default:
            return
        }
        historyPosition = position
        load(history[position])
    }

    /// Down: shows the next history entry, and after the newest one the draft again.
    public mutating func showNextHistoryEntry() {
        completion = nil
        guard let position = historyPosition else { return }
        if position + 1 < history.count {
            historyPosition = position + 1
            load(history[position + 1])
        } else {
            historyPosition = nil
            load(draft)
        }
    }

    /// The history of an earlier run (oldest first), before anything is typed: Up reaches it.
    public mutating func restoreHistory(_ lines: [String]) {
        history = Array((lines + history).suffix(historyLimit))
        historyPosition = nil
    }

    /// What is being typed, to keep as a buffer's draft when another is shown (the draft under a
    /// history entry being browsed, not the entry).
    public var unsentText: String { historyPosition == nil ? text : draft }

    /// Shows another buffer's draft (empty for none), the cursor at its end.
    public mutating func showDraft(_ text: String) {
        completion = nil
        historyPosition = nil
        draft = ""
        load(text)
    }

    /// True while Up/Down shows a history entry rather than the draft.
    public var isBrowsingHistory: Bool { historyPosition != nil }

    private mutating func load(_ line: String) {
        characters = Array(line)
        cursor = characters.count
        scrollOffset = 0
    }
}
