import ChatProtocol

/// Cuts a text longer than the protocol's 4,096 bytes (PROTOCOL.md section 4) into messages
/// that fit, so a long paste is sent whole instead of refused. Cuts fall between characters
/// (grapheme clusters: a letter keeps its accents, an emoji sequence stays whole), at the last
/// line break of a piece when there is one in its second half (the line break is the cut and
/// is not sent), else after the last space there, else after the last character that fits.
public enum MessageSplitter {
    public static func split(_ text: String, limit: Int = ChatLimits.maxTextBytes) -> [String] {
        let limit = max(4, limit)
        var pieces: [String] = []
        var rest = Substring(text)
        while rest.utf8.count > limit {
            var end = rest.startIndex
            var bytes = 0
            var lastLineBreak: String.Index?
            var lastSpace: String.Index?
            var index = rest.startIndex
            while index < rest.endIndex {
                let character = rest[index]
                let size = character.utf8.count
                guard bytes + size <= limit else { break }
                bytes += size
                index = rest.index(after: index)
                end = index
                if bytes * 2 >= limit {
                    if character.isNewline { lastLineBreak = index } else if character == " " { lastSpace = index }
                }
            }
            if end == rest.startIndex {
                // One character larger than the limit (a letter under a thousand marks): cut it
                // between scalars, as much as fits.
                var scalarBytes = 0
                for scalarIndex in rest.unicodeScalars.indices {
                    let size = String(rest.unicodeScalars[scalarIndex]).utf8.count
                    guard scalarBytes + size <= limit else { break }
                    scalarBytes += size
                    end = rest.unicodeScalars.index(after: scalarIndex)
                }
            }
            if let lineBreak = lastLineBreak {
                pieces.append(String(rest[..<rest.index(before: lineBreak)]))
                rest = rest[lineBreak...]
            } else {
                let cut = lastSpace ?? end
                pieces.append(String(rest[..<cut]))
                rest = rest[cut...]
            }
        }
        pieces.append(String(rest))
        return pieces.filter { !$0.isEmpty }
    }
}

extension MessageSplitter {
    /// The texts to send for what the person typed (within the protocol's 4,096 bytes, an action's
    /// `/me ` prefix included), each with what it shows.
    public static func pieces(of text: String, action: Bool) -> [(wire: String, shown: String)] {
        guard action else { return split(text).map { ($0, $0) } }
        return split(text, limit: ChatLimits.maxTextBytes - ChatAction.prefix.utf8.count).map { (ChatAction.text(for: $0), $0) }
    }
}
