/// Breaks glyphs into rows of at most `width` columns. Rows break after a space when the word
/// that follows does not fit, and at any cell boundary inside a word longer than a row (and in
/// scripts without spaces, such as CJK); a wide glyph is never split but moves whole to the next
/// row. A space that does not fit hangs at the end of its row instead of starting the next.
///
/// Rows after the first, and rows after an explicit line break, start with `indent` blank
/// columns, unless the indent would take more than half the width, or the row continues a URL
/// cut across rows: that row starts at the first column, so a URL selected with the mouse has no
/// blanks inside (issue 24, URLs). A glyph wider than the whole
/// width becomes `?`.
struct TextWrapper: Sendable {
    var width: Int
    var indent: Int

    init(width: Int, indent: Int) {
        self.width = max(1, width)
        self.indent = indent * 2 <= width ? max(0, indent) : 0
    }

    /// `unbreakablePrefix` glyphs at the start (timestamp and nick) offer no word breaks; `urls`
    /// are the glyph ranges of URLs.
    func wrap(_ glyphs: [Glyph], unbreakablePrefix: Int = 0, urls: [Range<Int>] = []) -> [WrappedRow] {
        var rows: [WrappedRow] = []
        var current = WrappedRow(indent: 0, glyphs: [])
        var used = 0
        // Index in `current.glyphs` where the row may break: glyphs from here on can move down.
        var breakIndex: Int?

        func startRow(carrying carried: [Glyph] = [], at position: Int? = nil) {
            rows.append(current)
            let continuesURL = position.map { position in urls.contains { $0.contains(position) && $0.lowerBound < position } } ?? false
            let rowIndent = continuesURL ? 0 : indent
            current = WrappedRow(indent: rowIndent, glyphs: carried)
            used = rowIndent + carried.reduce(0) { $0 + $1.width }
            breakIndex = nil
        }

        for (position, original) in glyphs.enumerated() {
            if original.isLineBreak {
                startRow()
                continue
            }
            let glyph = original.width > width ? Glyph(character: "?", width: 1, style: original.style) : original
            let isSpace = glyph.character == " "
            if used + glyph.width > width {
                if isSpace {
                    breakIndex = current.glyphs.count
                    continue
                }
                if let index = breakIndex, index > 0 {
                    let carried = Array(current.glyphs[index...])
                    let carriedWidth = carried.reduce(0) { $0 + $1.width }
                    if indent + carriedWidth + glyph.width <= width {
                        current.glyphs.removeSubrange(index...)
                        startRow(carrying: carried)
                    } else {
                        startRow(at: position)
                    }
                } else {
                    startRow(at: position)
                }
            }
            current.glyphs.append(glyph)
            used += glyph.width
            if isSpace, position >= unbreakablePrefix {
                breakIndex = current.glyphs.count
            }
        }
        rows.append(current)
        return rows
    }
}
