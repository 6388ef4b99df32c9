/// The words of a command's arguments as a shell reads them, for arguments that may hold spaces
/// (a path): `"my notes.txt"`, `'my notes.txt'` and `my\ notes.txt` are one word; a backslash
/// outside single quotes takes the next character as it is. Nil when a quote is not closed.
public enum CommandWords {
    public static func split(_ text: Substring) -> [String]? {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for character in text {
            if escaped {
                current.append(character)
                escaped = false
                inWord = true
                continue
            }
            switch (quote, character) {
            case ("'", "'"), ("\"", "\""):
                quote = nil
            case ("'", _):
                current.append(character)
            case (_, "\\"):
                escaped = true
                inWord = true
            case (nil, "'"), (nil, "\""):
                quote = character
                inWord = true
            case (nil, " "):
                if inWord { words.append(current) }
                current = ""
                inWord = false
            default:
                current.append(character)
                inWord = true
            }
        }
        guard quote == nil, !escaped else { return nil }
        if inWord { words.append(current) }
        return words
    }
}
