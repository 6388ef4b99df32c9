extension LineEditor {
    /// Tab: completes the word before the cursor, case-insensitively, and cycles through the other
    /// matches on each repeated press (wrapping around). A `/` word at the start of the line
    /// completes commands; any other word completes nicks. A nick completed at the start of the
    /// line gets `": "` as an address; elsewhere, and after a command, a space follows.
    public mutating func complete(from candidates: CompletionCandidates) {
        if var session = completion, !session.replacements.isEmpty {
            session.shownIndex = (session.shownIndex + 1) % session.replacements.count
            show(session)
            return
        }
        var wordStart = cursor
        while wordStart > 0, !characters[wordStart - 1].isWhitespace { wordStart -= 1 }
        guard wordStart < cursor else { return }
        let word = String(characters[wordStart..<cursor])
        let replacements = Self.replacements(for: word, atLineStart: wordStart == 0, from: candidates)
        guard !replacements.isEmpty else { return }
        show(CompletionSession(wordStart: wordStart, replacements: replacements, shownIndex: 0,
                               shownLength: cursor - wordStart))
    }

    /// True between a Tab that completed something and the next other operation.
    public var isCompleting: Bool { completion != nil }

    private mutating func show(_ session: CompletionSession) {
        var session = session
        let end = session.wordStart + session.shownLength
        replace(session.wordStart..<end, with: session.replacements[session.shownIndex])
        session.shownLength = cursor - session.wordStart
        completion = session
    }

    static func replacements(for word: String, atLineStart: Bool,
                             from candidates: CompletionCandidates) -> [String] {
        let completesCommand = atLineStart && word.hasPrefix("/")
        let pool = completesCommand ? candidates.commands : candidates.nicks
        let suffix = completesCommand || !atLineStart ? " " : ": "
        let lowercasedWord = word.lowercased()
        var seen = Set<String>()
        var replacements: [String] = []
        for candidate in pool where candidate.lowercased().hasPrefix(lowercasedWord) {
            guard seen.insert(candidate.lowercased()).inserted else { continue }
            replacements.append(sanitized(candidate) + suffix)
        }
        return replacements
    }
}
