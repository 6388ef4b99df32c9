extension Renderer {
    /// Who is typing (or a notice, until the next key), and `-- 12 more below --` at the right of
    /// the message pane, under it, while the room is scrolled back (`End` on an empty input line,
    /// or sending, jumps back down).
    func drawTypingLine(_ model: ChatViewModel, row: Int, width: Int, into frame: inout Frame) {
        var limit = min(width, frame.columns)
        if let room = model.currentRoom, room.isScrolledBack {
            let below = room.linesBelow
            let marker = Glyph.glyphs(below > 0 ? "-- \(below) more below --" : "-- more below --", style: style(bold: true))
            if marker.count < limit {
                frame.write(marker, row: row, column: limit - marker.count, limit: limit)
                limit -= marker.count + 1
            }
        }
        if let notice = model.notice {
            frame.write(Glyph.fitted(Glyph.singleLine(notice, style: style(bold: true)), width: limit), row: row, column: 0, limit: limit)
            return
        }
        guard let text = model.typingText(in: model.currentRoomIndex, now: options.now) else { return }
        frame.write(Glyph.singleLine(text, style: style(foreground: Palette.dim)), row: row, column: 0, limit: limit)
    }

    /// `[room] ` then the visible part of the editor; the frame's cursor goes where the editor's is.
    func drawInputLine(_ model: ChatViewModel, editor: LineEditor, row: Int, into frame: inout Frame) {
        if let secret = model.secretPrompt {
            // A password: the prompt, and nothing of what is typed, not even its length.
            let width = frame.write(Glyph.singleLine(secret, style: style(bold: true)), row: row, column: 0, limit: frame.columns)
            frame.cursor = CursorPosition(row: row, column: min(width, frame.columns - 1))
            return
        }
        let prompt = promptGlyphs(model, columns: frame.columns)
        let promptWidth = frame.write(prompt, row: row, column: 0, limit: frame.columns)
        let viewport = editor.viewport(width: frame.columns - promptWidth)
        var column = promptWidth
        for character in viewport.characters {
            // Editor text is already clean; this only puts a stray leading mark on a dotted circle.
            column = frame.write(Glyph.singleLine(String(character), style: .plain), row: row, column: column,
                                 limit: frame.columns)
        }
        let cursorColumn = min(promptWidth + viewport.cursorColumn, frame.columns - 1)
        frame.cursor = CursorPosition(row: row, column: cursorColumn)
    }

    /// Columns left for the editor on the input line: pass this to
    /// ``LineEditor/scrollToCursor(width:)`` before rendering.
    public func inputWidth(for model: ChatViewModel, size: TerminalSize) -> Int {
        let promptWidth = promptGlyphs(model, columns: size.columns).reduce(0) { $0 + $1.width }
        return max(0, size.columns - promptWidth)
    }

    /// `[lobby] `, or `> ` when the room name would take more than a third of the line, or
    /// nothing on a very narrow terminal.
    func promptGlyphs(_ model: ChatViewModel, columns: Int) -> [Glyph] {
        guard columns >= 8 else { return [] }
        let bold = style(bold: true)
        if let room = model.currentRoom {
            let prompt = Glyph.singleLine("[\(room.name)] ", style: bold)
            if prompt.reduce(0, { $0 + $1.width }) * 3 <= columns { return prompt }
        }
        return Glyph.glyphs("> ", style: bold)
    }
}
