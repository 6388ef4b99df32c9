extension LineEditor {
    /// Tab: completes the word before the cursor, case-insensitively, and cycles through the other
    /// matches on each repeated press (wrapping around). A `/` word at the start of the line
    /// completes commands; a path (as the caller says) its paths; a `#` word, or a room argument,
    /// rooms; any other word nicks. A nick completed at the start of the line gets `": "` as an
    /// address; elsewhere, and after a command or a room, a space follows; a path gets what the
    /// caller gave (a directory nothing, so Tab goes on into it). A word may hold `\ ` (a space in
    /// a path).
    public mutating func complete(from candidates: CompletionCandidates) {
        if var session = completion, !session.replacements.isEmpty {
            session.shownIndex = (session.shownIndex + 1) % session.replacements.count
            show(session)
            return
        }
        let wordStart = wordBeforeCursor.lowerBound
        guard wordStart < cursor else { return }
        let word = String(characters[wordStart..<cursor])
        let replacements = Self.replacements(for: word, atLineStart: wordStart == 0, from: candidates)
        guard !replacements.isEmpty else { return }
        show(CompletionSession(wordStart: wordStart, replacements: replacements, shownIndex: 0,
                               shownLength: cursor - wordStart))
    }

    /// The word Tab completes: back from the cursor to a blank (a `\ ` is part of the word).
    public var wordBeforeCursor: Range<Int> {
        var wordStart = cursor
        while wordStart > 0, !characters[wordStart - 1].isWhitespace || (wordStart > 1 && characters[wordStart - 2] == "\\") {
            wordStart -= 1
        }
        return wordStart..<cursor
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
        if !completesCommand, let paths = candidates.paths {
            return paths.filter { $0.hasPrefix(word) }.map { sanitized($0) }
        }
        if !completesCommand, candidates.wantsRoom || word.hasPrefix("#") {
            let hash = word.hasPrefix("#") ? "#" : ""
            let bare = String(word.dropFirst(hash.count)).lowercased()
            var seen = Set<String>()
            return candidates.rooms.filter { $0.lowercased().hasPrefix(bare) && seen.insert($0.lowercased()).inserted }.map { hash + sanitized($0) + " " }
        }
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
