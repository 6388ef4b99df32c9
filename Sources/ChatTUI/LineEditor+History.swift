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

    /// True while Up/Down shows a history entry rather than the draft.
    public var isBrowsingHistory: Bool { historyPosition != nil }

    private mutating func load(_ line: String) {
        characters = Array(line)
        cursor = characters.count
        scrollOffset = 0
    }
}
