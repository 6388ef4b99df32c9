/// The terminal's size in cells, from TIOCGWINSZ. Negative values become 0; every size is
/// drawable, 0x0 included.
public struct TerminalSize: Sendable, Hashable {
    public let columns: Int
    public let rows: Int

    public init(columns: Int, rows: Int) {
        self.columns = max(0, columns)
        self.rows = max(0, rows)
    }
}
