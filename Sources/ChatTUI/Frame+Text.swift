extension Frame {
    /// The text of a row as a terminal would show it: each glyph once, blanks as spaces.
    public func text(ofRow row: Int) -> String {
        guard (0..<rows).contains(row) else { return "" }
        var line = ""
        for column in 0..<columns where !self[row, column].isContinuation {
            line.append(self[row, column].character)
        }
        return line
    }

    /// Every row's text, trailing blanks removed: handy in tests and logs.
    public var textLines: [String] {
        (0..<rows).map { row in
            var line = text(ofRow: row)
            while line.last == " " { line.removeLast() }
            return line
        }
    }

    /// Writes glyphs from `column` on, never past `limit` (exclusive) and never splitting a wide
    /// glyph; returns the column after the last glyph written.
    @discardableResult
    mutating func write(_ glyphs: [Glyph], row: Int, column: Int, limit: Int) -> Int {
        var next = column
        let end = min(limit, columns)
        for glyph in glyphs {
            guard next + glyph.width <= end else { break }
            put(glyph.character, width: glyph.width, style: glyph.style, row: row, column: next)
            next += glyph.width
        }
        return next
    }
}
