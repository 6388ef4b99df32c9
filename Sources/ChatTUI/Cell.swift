/// One terminal cell. A wide glyph takes two cells: its own (width 2) and, to its right, a
/// continuation cell (width 0) that is never written on its own.
public struct Cell: Sendable, Hashable {
    public var character: Character
    /// 1 or 2 for a cell that starts a glyph, 0 for the right half of a wide glyph.
    public var width: Int
    public var style: CellStyle

    public init(character: Character, width: Int, style: CellStyle = .plain) {
        self.character = character
        self.width = width
        self.style = style
    }

    public static let blank = Cell(character: " ", width: 1)

    static func continuation(of style: CellStyle) -> Cell {
        Cell(character: " ", width: 0, style: style)
    }

    public var isContinuation: Bool { width == 0 }
}
