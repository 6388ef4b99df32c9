extension ChatRoom {
    /// The anchor the pane ends at now (the newest line when following), clamped to `rowCount`
    /// as it is at the current width; nil when the room has no lines.
    func effectiveAnchor(rowCount: (ChatLine) -> Int) -> ScrollAnchor? {
        guard !lines.isEmpty else { return nil }
        guard let anchor = scrollAnchor else {
            return ScrollAnchor(lineIndex: lines.count - 1, hiddenRows: 0)
        }
        let lineIndex = min(max(0, anchor.lineIndex), lines.count - 1)
        let rows = max(1, rowCount(lines[lineIndex]))
        return ScrollAnchor(lineIndex: lineIndex, hiddenRows: min(max(0, anchor.hiddenRows), rows - 1))
    }

    /// Moves the view `rows` rows towards older lines, stopping when the oldest row reaches the
    /// top of a pane of `paneRows` rows. `rowCount` tells how many rows a line takes.
    mutating func scrollUp(rows: Int, paneRows: Int, rowCount: (ChatLine) -> Int) -> ScrollOutcome {
        func rowsOf(_ line: ChatLine) -> Int { max(1, rowCount(line)) }
        guard rows > 0, paneRows > 0, let start = effectiveAnchor(rowCount: rowsOf) else {
            return .reachedOldest
        }
        // Rows from the pane's bottom row up to the oldest row, counted only as far as needed.
        var available = rowsOf(lines[start.lineIndex]) - start.hiddenRows
        var index = start.lineIndex
        while available < paneRows + rows, index > 0 {
            index -= 1
            available += rowsOf(lines[index])
        }
        let movable = min(rows, available - paneRows)
        guard movable > 0 else { return .reachedOldest }
        var lineIndex = start.lineIndex
        var hidden = start.hiddenRows + movable
        while hidden >= rowsOf(lines[lineIndex]) {
            hidden -= rowsOf(lines[lineIndex])
            lineIndex -= 1
        }
        scrollAnchor = ScrollAnchor(lineIndex: lineIndex, hiddenRows: hidden)
        return movable < rows ? .reachedOldest : .scrolled
    }

    /// Moves the view `rows` rows towards newer lines; reaching the newest line resumes following.
    mutating func scrollDown(rows: Int, rowCount: (ChatLine) -> Int) {
        func rowsOf(_ line: ChatLine) -> Int { max(1, rowCount(line)) }
        guard rows > 0, scrollAnchor != nil, let start = effectiveAnchor(rowCount: rowsOf) else { return }
        var lineIndex = start.lineIndex
        var hidden = start.hiddenRows - rows
        while hidden < 0 {
            lineIndex += 1
            guard lineIndex < lines.count else {
                scrollAnchor = nil
                return
            }
            hidden += rowsOf(lines[lineIndex])
        }
        let isAtNewest = lineIndex == lines.count - 1 && hidden == 0
        scrollAnchor = isAtNewest ? nil : ScrollAnchor(lineIndex: lineIndex, hiddenRows: hidden)
    }

    /// Drops the oldest lines beyond `limit`, keeping a scrolled view on the same lines.
    mutating func trimLines(to limit: Int) {
        let excess = lines.count - max(1, limit)
        guard excess > 0 else { return }
        lines.removeFirst(excess)
        if let match = searchMatch {
            searchMatch = match.lineIndex >= excess ? (match.lineIndex - excess, match.term) : nil
        }
        if let anchor = scrollAnchor {
            scrollAnchor = anchor.lineIndex >= excess
                ? ScrollAnchor(lineIndex: anchor.lineIndex - excess, hiddenRows: anchor.hiddenRows)
                : ScrollAnchor(lineIndex: 0, hiddenRows: 0)
        }
    }
}
