/// Terminal column width of grapheme clusters, following the grapheme-aware model of modern
/// terminals (kitty, WezTerm, foot, Ghostty): one `Character` occupies 0, 1 or 2 columns, decided
/// by its base scalar, so an emoji ZWJ sequence or a flag is one 2-column cell, not the sum of its
/// scalars.
///
/// East Asian Ambiguous characters count as 1, as in every non-CJK locale.
public enum DisplayWidth {
    /// Columns one grapheme cluster occupies: 0, 1 or 2.
    public static func columns(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        // A cluster made only of zero-width scalars (a stray combining mark) has no base to sit on.
        guard let base = scalars.first(where: { columns(of: $0) != 0 }) else { return 0 }
        if isRegionalIndicator(base) { return 2 }
        if base.properties.isEmoji && scalars.contains(emojiPresentationSelector) { return 2 }
        return columns(of: base)
    }

    /// Columns a string occupies when each of its clusters is drawn in turn.
    public static func columns<Text: StringProtocol>(of text: Text) -> Int {
        text.reduce(0) { $0 + columns(of: $1) }
    }

    /// Columns a single scalar occupies on its own: 0 for marks, format characters, controls and
    /// Hangul medial vowels and final consonants (which join the initial consonant's cell).
    public static func columns(of scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x7F { return value < 0x20 ? 0 : 1 }
        if value == 0xAD { return 1 }  // soft hyphen: terminals draw it as a visible hyphen
        if (0x1160...0x11FF).contains(value) || (0xD7B0...0xD7FF).contains(value) { return 0 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control:
            return 0
        default:
            return isWide(value) ? 2 : 1
        }
    }

    static let emojiPresentationSelector: Unicode.Scalar = "\u{FE0F}"

    static func isRegionalIndicator(_ scalar: Unicode.Scalar) -> Bool {
        (0x1F1E6...0x1F1FF).contains(scalar.value)
    }

    static func isWide(_ value: UInt32) -> Bool {
        var low = 0
        var high = wideRanges.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let range = wideRanges[middle]
            if value < range.first {
                high = middle - 1
            } else if value > range.last {
                low = middle + 1
            } else {
                return true
            }
        }
        return false
    }
}
