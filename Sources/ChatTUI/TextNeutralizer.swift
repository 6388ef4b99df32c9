/// Turns text from the network into text that is safe to draw: nothing in the result can move the
/// cursor, change colours, retitle the terminal, reorder the line or hide itself.
///
/// Every dangerous scalar becomes a visible placeholder, so a hostile message is shown, never
/// interpreted:
/// - C0 controls in caret notation (`^[` for ESC, `^G` for BEL, `^M` for CR), DEL as `^?`; since
///   ESC itself is replaced, every CSI, OSC, DCS, APC and PM sequence loses its introducer and
///   its remaining bytes show as plain text;
/// - C1 controls (U+0080-U+009F, including the 8-bit CSI U+009B), format characters (bidi
///   embeddings, overrides and isolates, zero-width space, word joiner, BOM, LRM/RLM, ...), line
///   and paragraph separators, and every other default-ignorable scalar that is not a mark (the
///   Hangul fillers often abused as blank names, unassigned ones), as `<U+XXXX>`.
///
/// Kept as they are: ZWJ and ZWNJ (needed by emoji sequences and by Persian and Indic scripts),
/// and tag characters inside an emoji tag sequence (the flags of England, Scotland, Wales).
/// TAB becomes `tabWidth` spaces (not aligned to tab stops: the column is the renderer's business).
/// LF is kept as a line break for the renderer, or shown as `↵` (``LineFeed/visibleSymbol``) for
/// single-line places such as nicks and the status bar.
///
/// A cluster that would have no width (a combining mark with nothing to sit on) is drawn on a
/// dotted circle U+25CC, the Unicode convention, so it cannot fuse with a neighbouring cell; a
/// Hangul vowel or final consonant outside a syllable, which joins no circle, shows as `<U+XXXX>`.
/// Clusters longer than `maximumScalarsPerCharacter` ("zalgo" stacks) are cut, and a ZWNJ keeps
/// what is left from joining the next cluster.
public struct TextNeutralizer: Sendable, Equatable {
    public enum LineFeed: Sendable, Equatable {
        /// LF stays `\n`; the renderer starts a new row.
        case lineBreak
        /// LF becomes `↵` (U+21B5).
        case visibleSymbol
    }

    public var lineFeed: LineFeed
    public var tabWidth: Int
    public var maximumScalarsPerCharacter: Int

    public init(lineFeed: LineFeed = .lineBreak, tabWidth: Int = 4, maximumScalarsPerCharacter: Int = 32) {
        self.lineFeed = lineFeed
        self.tabWidth = max(0, tabWidth)
        self.maximumScalarsPerCharacter = max(1, maximumScalarsPerCharacter)
    }

    /// For message bodies: line feeds are line breaks.
    public static let multiLine = TextNeutralizer(lineFeed: .lineBreak)
    /// For nicks, room names, typists, the status bar: everything on one row.
    public static let singleLine = TextNeutralizer(lineFeed: .visibleSymbol)

    public static let lineFeedSymbol = "\u{21B5}"
    public static let baselessMarkCarrier = "\u{25CC}"

    public func neutralize(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        var previousCutPiece: String?
        for character in text {
            let (piece, isCut) = neutralizedPiece(character)
            if let previous = previousCutPiece, (previous + piece).count < previous.count + piece.count {
                // What a cut leaves can join the next cluster (a Hangul syllable, a ZWJ emoji
                // sequence, an Indic conjunct) and grow past the limit again, cut after cut; a ZWNJ,
                // whose purpose is to stop joining, keeps them apart.
                result.unicodeScalars.append(Self.zeroWidthNonJoiner)
            }
            result += piece
            previousCutPiece = isCut ? piece : nil
        }
        return result
    }

    private static let zeroWidthNonJoiner: Unicode.Scalar = "\u{200C}"

    /// One cluster neutralised, and whether it lost scalars to the cut.
    func neutralizedPiece(_ character: Character) -> (piece: String, isCut: Bool) {
        let scalars = character.unicodeScalars
        let isEmojiTagSequence = scalars.first?.value == 0x1F3F4
        var piece = ""
        var kept = 0
        var isChanged = false
        var isCut = false
        for scalar in scalars {
            if let replacement = replacement(for: scalar, insideEmojiTagSequence: isEmojiTagSequence) {
                piece += replacement
                isChanged = true
            } else if kept < maximumScalarsPerCharacter {
                piece.unicodeScalars.append(scalar)
                kept += 1
            } else {
                isCut = true
            }
        }
        if let first = scalars.first,
           replacement(for: first, insideEmojiTagSequence: isEmojiTagSequence) == nil,
           DisplayWidth.columns(of: first) == 0 {
            let carried = Self.baselessMarkCarrier + piece
            // A Hangul vowel or final consonant joins only the syllable before it, never the carrier.
            let isCarried = carried.first?.unicodeScalars.count != 1
            piece = isCarried ? carried : piece
            isChanged = true
        }
        return (isChanged ? Self.showingClustersWithoutWidth(in: piece) : piece, isCut)
    }

    /// A Hangul vowel or final consonant that lost its syllable (it was baseless, or followed a
    /// placeholder) is a cluster of its own without width, which would fuse with its neighbour:
    /// such clusters are shown as code points.
    static func showingClustersWithoutWidth(in piece: String) -> String {
        let hasNoWidth = { (cluster: Character) in cluster != "\n" && DisplayWidth.columns(of: cluster) == 0 }
        guard piece.contains(where: hasNoWidth) else { return piece }
        var shown = ""
        for cluster in piece {
            if hasNoWidth(cluster) {
                shown += cluster.unicodeScalars.map(codePointNotation).joined()
            } else {
                shown.append(cluster)
            }
        }
        return shown
    }

    /// What a scalar is drawn as, or nil when it is safe as it is.
    func replacement(for scalar: Unicode.Scalar, insideEmojiTagSequence: Bool) -> String? {
        switch scalar.value {
        case 0x09:
            return String(repeating: " ", count: tabWidth)
        case 0x0A:
            return lineFeed == .lineBreak ? "\n" : Self.lineFeedSymbol
        case 0x00..<0x20:
            return Self.caretNotation(scalar.value)
        case 0x7F:
            return "^?"
        case 0x20..<0x7F:
            // Printable ASCII, most of any text: safe without looking up Unicode properties.
            return nil
        case 0x80...0x9F:
            return Self.codePointNotation(scalar)
        case 0x200C, 0x200D:
            return nil
        case 0xE0020...0xE007F where insideEmojiTagSequence:
            return nil
        default:
            let properties = scalar.properties
            switch properties.generalCategory {
            case .format, .lineSeparator, .paragraphSeparator, .control, .surrogate:
                return Self.codePointNotation(scalar)
            case .nonspacingMark:
                // Variation selectors are default-ignorable too, but they sit on a visible base.
                return nil
            default:
                // Drawn as nothing: the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0) and the
                // unassigned scalars reserved for future format characters.
                return properties.isDefaultIgnorableCodePoint ? Self.codePointNotation(scalar) : nil
            }
        }
    }

    /// `^@` for NUL, `^A` for 0x01, ..., `^[` for ESC, `^_` for 0x1F.
    static func caretNotation(_ value: UInt32) -> String {
        "^" + String(Unicode.Scalar(UInt8(value + 0x40)))
    }

    /// `<U+202E>`: four to six upper-case hex digits.
    static func codePointNotation(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "<U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + ">"
    }
}
