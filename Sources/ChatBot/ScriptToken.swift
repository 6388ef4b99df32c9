/// A word of a script line: a bare word, a `"quoted text"` or a `/regular expression/`.
enum ScriptToken: Equatable, Sendable {
    case word(String)
    case quoted(String)
    case regex(String)

    /// Splits `text` at spaces; quotes and slashes group, `\"` and `\\` escape inside quotes,
    /// `\/` inside a regex. Returns nil with the reason when a quote or slash is never closed.
    static func split(_ text: Substring) -> [ScriptToken]? {
        var tokens: [ScriptToken] = []
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == " " || character == "\t" {
                index = text.index(after: index)
            } else if character == "\"" || character == "/" {
                guard let (body, end) = delimited(text, from: index, by: character) else {
                    return nil
                }
                tokens.append(character == "\"" ? .quoted(body) : .regex(body))
                index = end
            } else {
                let end = text[index...].firstIndex { $0 == " " || $0 == "\t" } ?? text.endIndex
                tokens.append(.word(String(text[index..<end])))
                index = end
            }
        }
        return tokens
    }

    private static func delimited(_ text: Substring, from start: Substring.Index, by delimiter: Character)
        -> (String, Substring.Index)? {
        var body = ""
        var index = text.index(after: start)
        while index < text.endIndex {
            let character = text[index]
            let next = text.index(after: index)
            if character == delimiter { return (body, next) }
            if character == "\\", next < text.endIndex {
                let escaped = text[next]
                if escaped == delimiter || (delimiter == "\"" && escaped == "\\") {
                    body.append(escaped)
                } else {
                    // Regex escapes such as \d stay for the regex engine.
                    body.append(character)
                    body.append(escaped)
                }
                index = text.index(after: next)
                continue
            }
            body.append(character)
            index = next
        }
        return nil
    }
}
