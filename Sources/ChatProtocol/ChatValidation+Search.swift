/// Search words and mentions (PROTOCOL.md sections 15 and 17), shared by server and client so that
/// both find, count and highlight the same things.
extension ChatValidation {
    /// The words of `text` as `search` compares them, in order, repeats kept: maximal runs of
    /// Unicode letters and decimal digits, case-folded.
    ///
    /// Where the contract is silent (docs/PROTOCOL.md): combining marks that follow a letter or
    /// digit stay in its word (so "café" written with a combining accent is one word, as it is
    /// with the precomposed é), and case folding is the lowercase of the uppercase, which is
    /// Unicode's full case folding for everything a chat will hold (`Straße` and `STRASSE` are one
    /// word, and so are `ΣΊΣΥΦΟΣ` and `σίσυφος`).
    public static func searchWords(_ text: String) -> [String] {
        var words: [String] = []
        var word = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber:
                word.append(scalar)
            case .nonspacingMark, .spacingMark, .enclosingMark:
                // A mark belongs to the word it follows; one that starts a run is no word.
                if !word.isEmpty { word.append(scalar) }
            default:
                if !word.isEmpty { words.append(caseFolded(String(word))) }
                word = String.UnicodeScalarView()
            }
        }
        if !word.isEmpty { words.append(caseFolded(String(word))) }
        return words
    }

    /// A search's `text` checked: 1 to ``ChatLimits/maxSearchTextBytes`` bytes holding 1 to
    /// ``ChatLimits/maxSearchWords`` words; its distinct words, in order. Throws
    /// ``ChatValidationError/badSearch`` (`bad-field`).
    public static func searchQuery(_ text: String) throws(ChatValidationError) -> [String] {
        let size = text.utf8.count
        guard size >= 1, size <= ChatLimits.maxSearchTextBytes else { throw .badSearch }
        let words = searchWords(text)
        guard !words.isEmpty, words.count <= ChatLimits.maxSearchWords else { throw .badSearch }
        var seen = Set<String>()
        return words.filter { seen.insert($0).inserted }
    }

    /// Whether `text` holds every one of `query` (words from ``searchQuery(_:)``) as a whole word.
    public static func textMatches(_ text: String, query: [String]) -> Bool {
        let words = Set(searchWords(text))
        return query.allSatisfy(words.contains)
    }

    /// Whether `text` names `nick` (section 17): case-insensitively (nicks are ASCII), and not
    /// inside a longer run of nick characters (`bob` is named in "bob: hi" and "hi @bob!", not in
    /// "bobby" or "jim_bob").
    public static func mentions(_ text: String, nick: String) -> Bool {
        let name = Array(nick.utf8).map(asciiLowercased)
        guard !name.isEmpty else { return false }
        let bytes = Array(text.utf8)
        guard bytes.count >= name.count else { return false }
        for start in 0...(bytes.count - name.count) {
            guard asciiLowercased(bytes[start]) == name[0] else { continue }
            if start > 0, isNickByte(bytes[start - 1]) { continue }
            let end = start + name.count
            if end < bytes.count, isNickByte(bytes[end]) { continue }
            if (1..<name.count).allSatisfy({ asciiLowercased(bytes[start + $0]) == name[$0] }) { return true }
        }
        return false
    }

    private static func caseFolded(_ word: String) -> String {
        word.uppercased().lowercased()
    }

    /// The characters a nick is made of: ASCII letters, digits, `_` and `-`.
    private static func isNickByte(_ byte: UInt8) -> Bool {
        ASCII.isLetter(byte) || ASCII.isDigit(byte) || byte == ASCII.underscore || byte == ASCII.minus
    }
}
