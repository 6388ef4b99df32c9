/// Which rows and columns each part of the screen gets at a terminal size. Rows are given up in
/// this order as the terminal shrinks: the typing line, the message pane, the status bar; the
/// input line stays while there is one row. The member list needs `memberListMinimumColumns`.
public struct ScreenLayout: Sendable, Equatable {
    public let size: TerminalSize
    public let statusRow: Int?
    /// The room's topic, above its messages (when it has one and the pane has rows to spare).
    public let topicRow: Int?
    public let messageRows: Range<Int>
    /// The rows of the member list: the message pane's, the topic's included.
    public let memberRows: Range<Int>
    /// The message pane spans columns `0..<messageWidth`.
    public let messageWidth: Int
    /// The member list's columns; the separator is the column just left of them.
    public let memberColumns: Range<Int>?
    public let typingRow: Int?
    public let inputRow: Int?

    /// `showsMembers` false (a private conversation): the message pane takes the whole width.
    public init(size: TerminalSize, memberListMinimumColumns: Int = 60, showsTopic: Bool = false, showsMembers: Bool = true) {
        self.size = size
        let rows = size.rows
        statusRow = rows >= 2 ? 0 : nil
        inputRow = rows >= 1 ? rows - 1 : nil
        typingRow = rows >= 4 ? rows - 2 : nil
        let pane = rows >= 3 ? 1..<(rows >= 4 ? rows - 2 : rows - 1) : 0..<0
        memberRows = pane
        if showsTopic, pane.count >= 3 {
            topicRow = pane.lowerBound
            messageRows = (pane.lowerBound + 1)..<pane.upperBound
        } else {
            topicRow = nil
            messageRows = pane
        }
        if showsMembers, size.columns >= memberListMinimumColumns, !pane.isEmpty, size.columns >= 30 {
            let memberWidth = min(24, max(12, size.columns / 5))
            memberColumns = (size.columns - memberWidth)..<size.columns
            messageWidth = size.columns - memberWidth - 1
        } else {
            memberColumns = nil
            messageWidth = size.columns
        }
    }
}
