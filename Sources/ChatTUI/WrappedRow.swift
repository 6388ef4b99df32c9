/// One screen row of a wrapped chat line: blank columns, then glyphs.
struct WrappedRow: Sendable, Equatable {
    var indent: Int
    var glyphs: [Glyph]
}
