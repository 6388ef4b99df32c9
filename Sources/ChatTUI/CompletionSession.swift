/// A run of consecutive Tab presses: the word being completed and the match shown now.
struct CompletionSession: Sendable, Equatable {
    /// Index of the first cluster of the completed word.
    var wordStart: Int
    /// Every replacement for the word, suffix included, in candidate order.
    var replacements: [String]
    var shownIndex: Int
    /// Clusters the shown replacement occupies, so the next Tab knows what to take back out.
    var shownLength: Int
}
