/// Whether a message is for the person: it names their nick or one of their highlight words
/// (the configuration's `highlight`) as a whole word, ignoring case. "alice:" and "@alice"
/// mention alice; "malice" and "alice_2" do not (letters, digits, `_` and `-` continue a word, as
/// they continue a nick).
public struct HighlightMatcher: Sendable, Equatable {
    public var nick: String
    public var words: [String]

    public init(nick: String, words: [String] = []) {
        self.nick = nick
        self.words = words
    }

    public func matches(_ text: String) -> Bool {
        let haystack = Array(text.lowercased())
        return ([nick] + words).contains { term in
            let needle = Array(term.lowercased())
            return !needle.isEmpty && Self.containsWord(needle, in: haystack)
        }
    }

    static func containsWord(_ needle: [Character], in haystack: [Character]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            guard haystack[start..<(start + needle.count)].elementsEqual(needle) else { continue }
            let before = start == 0 ? nil : haystack[start - 1]
            let after = start + needle.count == haystack.count ? nil : haystack[start + needle.count]
            if !continuesWord(before) && !continuesWord(after) { return true }
        }
        return false
    }

    static func continuesWord(_ character: Character?) -> Bool {
        guard let character else { return false }
        return character.isLetter || character.isNumber || character == "_" || character == "-"
    }
}
