/// A neutralised cluster with its width and style, on its way into a frame.
struct Glyph: Sendable, Equatable {
    var character: Character
    var width: Int
    var style: CellStyle

    /// Glyphs for text that is already neutralised; `\n` stays as a zero-width break marker and
    /// any other zero-width cluster is dropped.
    static func glyphs(_ text: String, style: CellStyle) -> [Glyph] {
        var glyphs: [Glyph] = []
        for character in text {
            let width = DisplayWidth.columns(of: character)
            if character == "\n" {
                glyphs.append(Glyph(character: character, width: 0, style: style))
            } else if width > 0 {
                glyphs.append(Glyph(character: character, width: width, style: style))
            }
        }
        return glyphs
    }

    /// Glyphs for raw text that must stay on one row: neutralised with LF shown as `↵`.
    static func singleLine(_ raw: String, style: CellStyle) -> [Glyph] {
        glyphs(TextNeutralizer.singleLine.neutralize(raw), style: style)
    }

    var isLineBreak: Bool { character == "\n" }
}
