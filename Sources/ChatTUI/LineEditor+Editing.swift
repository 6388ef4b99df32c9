extension LineEditor {
    /// Inserts typed or pasted text at the cursor. Tabs become spaces, and line breaks too unless
    /// `keepingLineBreaks` (a bracketed paste of several lines: they are sent as one message with
    /// its line breaks, and the input line shows them as `↵`); other controls and invisible
    /// format characters are dropped, so nothing the user pastes can act on the terminal or hide
    /// in the sent message.
    public mutating func insert(_ typed: String, keepingLineBreaks: Bool = false) {
        let clean = Self.sanitized(typed, keepingLineBreaks: keepingLineBreaks)
        guard !clean.isEmpty else { return }
        completion = nil
        replace(cursor..<cursor, with: clean)
    }

    public mutating func moveLeft() {
        completion = nil
        cursor = max(0, cursor - 1)
    }

    public mutating func moveRight() {
        completion = nil
        cursor = min(characters.count, cursor + 1)
    }

    /// Home and Ctrl-A.
    public mutating func moveToStart() {
        completion = nil
        cursor = 0
    }

    /// End and Ctrl-E.
    public mutating func moveToEnd() {
        completion = nil
        cursor = characters.count
    }

    /// Backspace: deletes the cluster before the cursor.
    public mutating func deleteBackward() {
        completion = nil
        guard cursor > 0 else { return }
        replace(cursor - 1..<cursor, with: "")
    }

    /// Delete: deletes the cluster under the cursor.
    public mutating func deleteForward() {
        completion = nil
        guard cursor < characters.count else { return }
        let head = String(characters[..<cursor])
        setText(head: head, tail: String(characters[(cursor + 1)...]))
    }

    /// Ctrl-K: cuts from the cursor to the end of the line.
    public mutating func killToEnd() {
        completion = nil
        guard cursor < characters.count else { return }
        killBuffer = Array(characters[cursor...])
        setText(head: String(characters[..<cursor]), tail: "")
    }

    /// Ctrl-U: cuts from the start of the line to the cursor.
    public mutating func killToStart() {
        completion = nil
        guard cursor > 0 else { return }
        killBuffer = Array(characters[..<cursor])
        replace(0..<cursor, with: "")
    }

    /// Ctrl-W: cuts the word before the cursor and the spaces after it, as readline's
    /// unix-word-rubout does (words end at whitespace only, so `/join` and `alice:` go whole).
    public mutating func deleteWordBeforeCursor() {
        completion = nil
        var start = cursor
        while start > 0, characters[start - 1].isWhitespace { start -= 1 }
        while start > 0, !characters[start - 1].isWhitespace { start -= 1 }
        guard start < cursor else { return }
        killBuffer = Array(characters[start..<cursor])
        replace(start..<cursor, with: "")
    }

    /// Ctrl-Y: inserts the text the last Ctrl-K, Ctrl-U or Ctrl-W cut.
    public mutating func yank() {
        completion = nil
        guard !killBuffer.isEmpty else { return }
        replace(cursor..<cursor, with: String(killBuffer))
    }

    /// Empties the line (the history is kept).
    public mutating func clear() {
        completion = nil
        characters = []
        cursor = 0
        scrollOffset = 0
    }

    static func sanitized(_ typed: String, keepingLineBreaks: Bool = false) -> String {
        var clean = ""
        for character in typed {
            if character.isNewline {
                clean.append(keepingLineBreaks ? "\n" : " ")
                continue
            }
            if character == "\t" {
                clean.append(" ")
                continue
            }
            let isEmojiTagSequence = character.unicodeScalars.first?.value == 0x1F3F4
            for scalar in character.unicodeScalars
            where TextNeutralizer.multiLine.replacement(for: scalar, insideEmojiTagSequence: isEmojiTagSequence) == nil {
                clean.unicodeScalars.append(scalar)
            }
        }
        return clean
    }
}
