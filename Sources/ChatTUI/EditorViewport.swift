/// The part of the input line that fits the columns given, and where the cursor is within it.
public struct EditorViewport: Sendable, Equatable {
    /// Clusters shown, left to right; their columns never exceed the width asked for.
    public var characters: [Character]
    /// Column of the cursor, counted from the first shown cluster.
    public var cursorColumn: Int
    /// Index in the editor's text of the first shown cluster.
    public var firstIndex: Int

    public init(characters: [Character], cursorColumn: Int, firstIndex: Int) {
        self.characters = characters
        self.cursorColumn = cursorColumn
        self.firstIndex = firstIndex
    }
}
