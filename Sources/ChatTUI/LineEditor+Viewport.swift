extension LineEditor {
    /// Moves the horizontal scroll just enough to keep the cursor visible in `width` columns.
    /// Call it after each edit with the input line's width; ``viewport(width:)`` starts from the
    /// offset kept here, so the text only moves when the cursor would leave the visible part.
    public mutating func scrollToCursor(width: Int) {
        scrollOffset = Self.offset(keeping: scrollOffset, cursor: cursor, in: characters, width: width)
    }

    /// What to draw in `width` columns. Wide clusters are never split: one that does not fit
    /// whole at the right edge is left out. Without a prior ``scrollToCursor(width:)`` the cursor
    /// is still kept visible, only the scrolling is less steady.
    public func viewport(width: Int) -> EditorViewport {
        guard width > 0 else { return EditorViewport(characters: [], cursorColumn: 0, firstIndex: cursor) }
        let first = Self.offset(keeping: scrollOffset, cursor: cursor, in: characters, width: width)
        var shown: [Character] = []
        var used = 0
        for character in characters[first...] {
            let columns = Self.columns(of: character)
            if used + columns > width { break }
            shown.append(character)
            used += columns
        }
        let cursorColumn = Self.columns(of: characters[first..<cursor])
        return EditorViewport(characters: shown, cursorColumn: cursorColumn, firstIndex: first)
    }

    /// The first shown index closest to `current` that shows the cursor's cell whole, and that
    /// does not leave columns empty at the right while text is hidden at the left.
    static func offset(keeping current: Int, cursor: Int, in characters: [Character], width: Int) -> Int {
        guard width > 0 else { return cursor }
        // The cursor needs its own cell: the cluster under it, or one blank column at the end.
        let cursorCell = cursor < characters.count ? columns(of: characters[cursor]) : 1
        var offset = min(max(0, current), cursor)
        var beforeCursor = columns(of: characters[offset..<cursor])
        while offset < cursor, beforeCursor + cursorCell > width {
            beforeCursor -= columns(of: characters[offset])
            offset += 1
        }
        var shownToEnd = columns(of: characters[offset...]) + 1
        while offset > 0, shownToEnd + columns(of: characters[offset - 1]) <= width {
            offset -= 1
            shownToEnd += columns(of: characters[offset])
        }
        return offset
    }
}
