/// The input line as a pure value: text, cursor, history, tab completion and horizontal scroll.
///
/// The text is a list of grapheme clusters, so the cursor never lands inside a cluster (an emoji
/// ZWJ sequence, a flag, a letter with its accents). Every edit rebuilds the clusters from the
/// joined text because an edit can change where clusters break: a combining mark typed after `e`
/// joins it, deleting one regional indicator re-pairs the flags after it.
///
/// The text never holds controls or invisible format characters (see ``insert(_:)``), so what
/// the renderer draws is exactly what will be sent and its width is known.
public struct LineEditor: Sendable, Equatable {
    public internal(set) var characters: [Character] = []
    /// Index into `characters` of the cluster after the cursor; `characters.count` at the end.
    public internal(set) var cursor = 0
    /// Index of the first cluster shown; kept by ``scrollToCursor(width:)`` so the line does not
    /// jump while the cursor moves inside the visible part.
    public internal(set) var scrollOffset = 0
    /// Submitted lines, oldest first.
    public internal(set) var history: [String] = []
    public let historyLimit: Int

    /// Position in `history` while browsing it with Up/Down; nil while editing the draft.
    var historyPosition: Int?
    /// The unsent line, kept while the user browses history.
    var draft = ""
    var killBuffer: [Character] = []
    var completion: CompletionSession?

    public init(historyLimit: Int = 500) {
        self.historyLimit = max(0, historyLimit)
    }

    public var text: String { String(characters) }
    public var isEmpty: Bool { characters.isEmpty }

    /// Columns the cursor sits after, counted from the start of the text.
    public var cursorColumn: Int { Self.columns(of: characters[..<cursor]) }

    /// Columns a cluster takes in the input line. A cluster without width (a mark typed at the
    /// start of the line) is drawn on a dotted circle and so takes one column.
    static func columns(of character: Character) -> Int {
        max(1, DisplayWidth.columns(of: character))
    }

    static func columns(of characters: ArraySlice<Character>) -> Int {
        characters.reduce(0) { $0 + columns(of: $1) }
    }

    /// Replaces the whole text with `head + tail`, the cursor between them.
    mutating func setText(head: String, tail: String) {
        characters = Array(head + tail)
        cursor = min(head.count, characters.count)
        scrollOffset = min(scrollOffset, cursor)
    }

    /// Replaces `range` with `replacement` and puts the cursor after it.
    mutating func replace(_ range: Range<Int>, with replacement: String) {
        let head = String(characters[..<range.lowerBound]) + replacement
        setText(head: head, tail: String(characters[range.upperBound...]))
    }
}
