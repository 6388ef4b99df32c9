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

    /// At most `width` columns of `glyphs`; when some are cut, the last column shows `…`, so a
    /// long nick or topic never reads as a shorter one.
    static func fitted(_ glyphs: [Glyph], width: Int) -> [Glyph] {
        guard glyphs.reduce(0, { $0 + $1.width }) > width else { return glyphs }
        guard width > 0 else { return [] }
        var kept: [Glyph] = []
        var used = 0
        for glyph in glyphs {
            guard used + glyph.width <= width - 1 else { break }
            kept.append(glyph)
            used += glyph.width
        }
        return kept + [Glyph(character: "…", width: 1, style: glyphs[kept.count].style)]
    }
}
