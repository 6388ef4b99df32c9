extension Renderer {
    /// The current room's lines, newest at the bottom (or ending at the scroll anchor), each
    /// wrapped to the pane's width.
    func drawMessagePane(_ model: ChatViewModel, layout: ScreenLayout, into frame: inout Frame) {
        let paneRows = layout.messageRows.count
        let width = layout.messageWidth
        guard paneRows > 0, width > 0, let room = model.currentRoom else { return }
        let formatter = formatter
        guard let anchor = room.effectiveAnchor(rowCount: { formatter.rowCount(for: $0, width: width) }) else { return }

        var bottomUp: [WrappedRow] = []
        var lineIndex = anchor.lineIndex
        var hidden = anchor.hiddenRows
        while bottomUp.count < paneRows, lineIndex >= 0 {
            let rows = formatter.rows(for: room.lines[lineIndex], width: width, emphasized: room.searchMatch?.lineIndex == lineIndex)
            bottomUp += rows.dropLast(hidden).reversed().prefix(paneRows - bottomUp.count)
            hidden = 0
            lineIndex -= 1
        }
        for (offset, wrapped) in bottomUp.enumerated() {
            let row = layout.messageRows.upperBound - 1 - offset
            frame.write(wrapped.glyphs, row: row, column: wrapped.indent, limit: width)
        }
    }

    /// The topic above the messages, one line, cut at the pane's width; neutralised like all text.
    /// A member's marks: `@` operator or `+` logged in, then `~` when away; "" for none.
    public static func memberMarks(_ nick: String, in room: ChatRoom, away: Bool) -> String {
        MemberOrder.marks(nick, operators: room.operators, identified: room.identified, away: away)
    }

    /// The member list's order: operators, then members logged in, then the rest, by name.
    public static func memberOrder(_ room: ChatRoom) -> [String] {
        MemberOrder.sorted(room.members, operators: room.operators, identified: room.identified)
    }

    func drawTopic(_ topic: String, row: Int, width: Int, into frame: inout Frame) {
        let label = Glyph.glyphs("Topic: ", style: style(foreground: Palette.dim, bold: true))
        frame.write(Glyph.fitted(label + Glyph.singleLine(topic, style: style(bold: true)), width: width), row: row, column: 0, limit: width)
    }

    /// A `|` column, then ` Members (N)` and one member a row, its marks before it: `@` an
    /// operator, `+` logged in to an account, then `~` when away (`@~alice`), a space for none;
    /// the name of an away user is dim, a name too long ends with `…`. Operators come first, then
    /// those logged in, then the rest, each in name order (issue 24, habits: as weechat sorts).
    func drawMemberList(_ model: ChatViewModel, rows: Range<Int>, columns: Range<Int>, into frame: inout Frame) {
        let separator = Glyph.glyphs("|", style: style(foreground: Palette.dim))
        for row in rows {
            frame.write(separator, row: row, column: columns.lowerBound - 1, limit: columns.lowerBound)
        }
        guard let room = model.currentRoom, let headerRow = rows.first else { return }
        let members = Self.memberOrder(room)
        frame.write(Glyph.singleLine(" Members (\(members.count))", style: style(bold: true)),
                    row: headerRow, column: columns.lowerBound, limit: columns.upperBound)
        let slots = rows.count - 1
        guard slots > 0 else { return }
        let overflow = members.count > slots
        let shown = overflow ? Array(members.prefix(slots - 1)) : members
        for (offset, nick) in shown.enumerated() {
            let isAway = model.status(of: nick) == .away
            let mark = Self.memberMarks(nick, in: room, away: isAway)
            let marks = mark.isEmpty ? Glyph.glyphs(" ", style: .plain)
                : mark.map { Glyph(character: $0, width: 1, style: style(foreground: $0 == "@" ? Palette.highlight : Palette.dim, bold: $0 == "@")) }
            let name = Glyph.singleLine(nick, style: style(foreground: isAway ? Palette.dim : NickPalette.color(for: nick)))
            frame.write(marks + Glyph.fitted(name, width: columns.count - marks.count), row: headerRow + 1 + offset, column: columns.lowerBound,
                        limit: columns.upperBound)
        }
        if overflow {
            frame.write(Glyph.singleLine(" +\(members.count - shown.count) more", style: style(foreground: Palette.dim)),
                        row: rows.upperBound - 1, column: columns.lowerBound, limit: columns.upperBound)
        }
    }
}
