/// The web addresses in a text (issue 24, URLs): `http://`, `https://` and `ftp://` followed by
/// the characters a URL may hold (RFC 3986's unreserved and reserved ones and `%`). Punctuation
/// that ends a sentence (`.,;:!?'"`) is not part of it, nor is a closing bracket the URL did not
/// open, so `(see https://example.org/a_(b).)` gives `https://example.org/a_(b)`.
public enum URLFinder {
    static let schemes = ["https://", "http://", "ftp://"]

    /// The URLs of `text` as ranges of its characters (offsets), in order.
    public static func ranges(in text: String) -> [Range<Int>] {
        guard text.contains("://") else { return [] }
        let characters = Array(text)
        var found: [Range<Int>] = []
        var index = 0
        while index < characters.count {
            guard startsScheme(characters, at: index), index == 0 || !isWordCharacter(characters[index - 1]) else {
                index += 1
                continue
            }
            var end = index
            while end < characters.count, isURLCharacter(characters[end]) { end += 1 }
            end = trimmedEnd(characters, start: index, end: end)
            let schemeLength = schemes.first { scheme in Array(scheme).elementsEqual(characters[index..<min(characters.count, index + scheme.count)]) }?.count ?? 0
            if end > index + schemeLength { found.append(index..<end) }
            index = max(end, index + 1)
        }
        return found
    }

    /// The URLs of `text`, in order.
    public static func urls(in text: String) -> [String] {
        let characters = Array(text)
        return ranges(in: text).map { String(characters[$0]) }
    }

    static func startsScheme(_ characters: [Character], at index: Int) -> Bool {
        schemes.contains { scheme in
            let wanted = Array(scheme)
            return index + wanted.count <= characters.count
                && zip(wanted, characters[index..<(index + wanted.count)]).allSatisfy { $0 == Character($1.lowercased()) }
        }
    }

    static func isWordCharacter(_ character: Character) -> Bool { character.isLetter || character.isNumber }

    static func isURLCharacter(_ character: Character) -> Bool {
        guard character.isASCII, let value = character.asciiValue else { return false }
        switch value {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        default: return "-._~:/?#[]@!$&'()*+,;=%".contains(character)
        }
    }

    /// Drops a sentence's punctuation and unopened closing brackets from the end.
    static func trimmedEnd(_ characters: [Character], start: Int, end: Int) -> Int {
        var end = end
        while end > start {
            let last = characters[end - 1]
            if ".,;:!?'\"".contains(last) {
                end -= 1
            } else if last == ")" || last == "]" {
                let opening: Character = last == ")" ? "(" : "["
                let opened = characters[start..<end].filter { $0 == opening }.count
                let closed = characters[start..<end].filter { $0 == last }.count
                guard closed > opened else { break }
                end -= 1
            } else {
                break
            }
        }
        return end
    }
}
