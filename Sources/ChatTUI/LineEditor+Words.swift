/// Word-wise editing as readline does it (issue 24, habits): a word is a run of letters and
/// digits; Alt-B and Alt-F (Ctrl-Left, Ctrl-Right) move over one, Alt-D cuts the one after the
/// cursor, Alt-Backspace the one before (Ctrl-W cuts up to whitespace instead), Ctrl-T swaps the
/// two characters around the cursor.
extension LineEditor {
    static func isWordCharacter(_ character: Character) -> Bool { character.isLetter || character.isNumber }

    /// The start of the word before the cursor (past any non-word characters first).
    func wordStartBeforeCursor() -> Int {
        var index = cursor
        while index > 0, !Self.isWordCharacter(characters[index - 1]) { index -= 1 }
        while index > 0, Self.isWordCharacter(characters[index - 1]) { index -= 1 }
        return index
    }

    /// The end of the word after the cursor (past any non-word characters first).
    func wordEndAfterCursor() -> Int {
        var index = cursor
        while index < characters.count, !Self.isWordCharacter(characters[index]) { index += 1 }
        while index < characters.count, Self.isWordCharacter(characters[index]) { index += 1 }
        return index
    }

    /// Alt-B, Ctrl-Left.
    public mutating func moveWordLeft() {
        completion = nil
        cursor = wordStartBeforeCursor()
    }

    /// Alt-F, Ctrl-Right.
    public mutating func moveWordRight() {
        completion = nil
        cursor = wordEndAfterCursor()
    }

    /// Alt-D: cuts to the end of the word after the cursor.
    public mutating func deleteWordAfterCursor() {
        completion = nil
        let end = wordEndAfterCursor()
        guard end > cursor else { return }
        killBuffer = Array(characters[cursor..<end])
        setText(head: String(characters[..<cursor]), tail: String(characters[end...]))
    }

    /// Alt-Backspace: cuts back to the start of the word before the cursor.
    public mutating func deleteWordBeforeCursorByLetters() {
        completion = nil
        let start = wordStartBeforeCursor()
        guard start < cursor else { return }
        killBuffer = Array(characters[start..<cursor])
        replace(start..<cursor, with: "")
    }

    /// Ctrl-T: swaps the character before the cursor with the one under it (at the end of the
    /// line, the last two), and moves past them.
    public mutating func transposeCharacters() {
        completion = nil
        guard characters.count >= 2, cursor > 0 else { return }
        let second = min(cursor, characters.count - 1)
        let first = second - 1
        var swapped = characters
        swapped.swapAt(first, second)
        setText(head: String(swapped[...second]), tail: String(swapped[(second + 1)...]))
    }
}
