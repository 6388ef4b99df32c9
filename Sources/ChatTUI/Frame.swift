/// A full screen of cells plus the cursor: what the renderer produces and the writer diffs.
public struct Frame: Sendable, Equatable {
    public let size: TerminalSize
    public private(set) var cells: [Cell]
    /// Where the terminal's cursor should be, or nil to hide it.
    public var cursor: CursorPosition?

    public init(size: TerminalSize) {
        self.size = size
        cells = Array(repeating: .blank, count: size.columns * size.rows)
    }

    public var columns: Int { size.columns }
    public var rows: Int { size.rows }

    public subscript(row: Int, column: Int) -> Cell {
        cells[row * columns + column]
    }

    public func contains(row: Int, column: Int) -> Bool {
        (0..<rows).contains(row) && (0..<columns).contains(column)
    }

    /// Puts a glyph at a cell the way a terminal does: a wide glyph also takes the next cell,
    /// and any wide glyph it partly covers is blanked whole. A glyph that does not fit in the
    /// row (a wide one in the last column) or has no width is not put.
    public mutating func put(_ character: Character, width: Int, style: CellStyle, row: Int, column: Int) {
        guard width == 1 || width == 2, contains(row: row, column: column), column + width <= columns else { return }
        for covered in column..<(column + width) {
            breakWideGlyph(row: row, column: covered)
        }
        cells[row * columns + column] = Cell(character: character, width: width, style: style)
        if width == 2 {
            cells[row * columns + column + 1] = .continuation(of: style)
        }
    }

    /// Sets every cell of `row` in `columnRange` to a blank of `style`.
    public mutating func fill(row: Int, columns columnRange: Range<Int>, style: CellStyle) {
        let clamped = columnRange.clamped(to: 0..<columns)
        guard (0..<rows).contains(row), !clamped.isEmpty else { return }
        for column in clamped {
            put(" ", width: 1, style: style, row: row, column: column)
        }
    }

    /// Blanks the whole wide glyph a cell belongs to, before part of it is overwritten.
    private mutating func breakWideGlyph(row: Int, column: Int) {
        let cell = self[row, column]
        if cell.isContinuation, column > 0 {
            cells[row * columns + column - 1] = .blank
            cells[row * columns + column] = .blank
        } else if cell.width == 2, column + 1 < columns {
            cells[row * columns + column] = .blank
            cells[row * columns + column + 1] = .blank
        }
    }
}
