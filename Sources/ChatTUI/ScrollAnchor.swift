/// Where a scrolled-back message pane ends: the bottom row shown is the row
/// `rowCount - 1 - hiddenRows` of the line at `lineIndex`. Anchoring to a line index rather than
/// to "rows from the bottom" keeps the view still while new lines arrive.
public struct ScrollAnchor: Sendable, Equatable {
    public var lineIndex: Int
    /// Rows of that line below the pane (a line taller than the pane can be read in parts).
    public var hiddenRows: Int

    public init(lineIndex: Int, hiddenRows: Int) {
        self.lineIndex = lineIndex
        self.hiddenRows = hiddenRows
    }
}
