/// Bytes for the terminal, with the cursor position and style the terminal will have after them,
/// so that cursor moves and SGR are only sent when they change.
struct TerminalOutput {
    private(set) var bytes: [UInt8] = []
    /// nil when unknown: after a glyph whose width terminals may disagree on, after writing in
    /// the last column (the cursor then waits to wrap), and at the start.
    private(set) var cursor: CursorPosition?
    /// nil when unknown, at the start (kept without its link: SGR does not say it).
    private(set) var style: CellStyle?
    /// The hyperlink open (OSC 8); output never ends with one open, so none at the start.
    private(set) var link: String?
    let columns: Int

    init(columns: Int) {
        self.columns = columns
    }

    mutating func append(_ sequence: [UInt8]) {
        bytes += sequence
    }

    /// CUP: `ESC [ row ; column H`, one-based.
    mutating func moveCursor(to position: CursorPosition) {
        guard cursor != position else { return }
        bytes += Array("\u{1B}[\(position.row + 1);\(position.column + 1)H".utf8)
        cursor = position
    }

    /// SGR from a reset, so no attribute of the previous style can linger.
    mutating func setStyle(_ next: CellStyle) {
        let next = next.withoutLink
        guard style != next else { return }
        var sequence = "\u{1B}[0"
        if next.bold { sequence += ";1" }
        if next.reverse { sequence += ";7" }
        if let color = next.foreground {
            switch color {
            case 0...7: sequence += ";\(30 + Int(color))"
            case 8...15: sequence += ";\(90 + Int(color) - 8)"
            default: sequence += ";38;5;\(color)"
            }
        }
        bytes += Array((sequence + "m").utf8)
        style = next
    }

    /// OSC 8: `ESC ] 8 ; ; URL ESC \` opens a hyperlink, with no URL closes it.
    mutating func setLink(_ next: String?) {
        guard link != next else { return }
        bytes += Array("\u{1B}]8;;\(next ?? "")\u{1B}\\".utf8)
        link = next
    }

    /// Writes a cell's glyph at a position.
    mutating func write(_ cell: Cell, at position: CursorPosition) {
        moveCursor(to: position)
        setLink(cell.style.link)
        setStyle(cell.style)
        bytes += Array(String(cell.character).utf8)
        let next = position.column + cell.width
        cursor = next < columns && Self.hasAgreedWidth(cell.character)
            ? CursorPosition(row: position.row, column: next)
            : nil
    }

    mutating func resetStyleIfNeeded() {
        setLink(nil)
        if let style, style != .plain {
            bytes += TerminalControl.resetStyle
            self.style = .plain
        }
    }

    /// True for clusters every terminal gives the same width: one scalar below the emoji
    /// planes. After anything else (ZWJ sequences, flags, combining sequences, emoji with
    /// selectors) the next cell is addressed explicitly, so a terminal that measures the cluster
    /// differently misplaces nothing after it.
    static func hasAgreedWidth(_ character: Character) -> Bool {
        let scalars = character.unicodeScalars
        guard scalars.count == 1, let only = scalars.first else { return false }
        return only.value < 0x1F000
    }
}
