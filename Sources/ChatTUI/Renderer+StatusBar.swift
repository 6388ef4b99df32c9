extension Renderer {
    /// ` server | nick | 1:lobby [2:dev] 3:@bob(2) ` on the left, `[a transfer's bar and figures |]
    /// connected | rtt 23 ms ` on the right, in reverse video. The right part takes at most half the bar (without the RTT if need
    /// be). The room list always shows the current room: when not all fit, it shows the rooms
    /// around it, with `<N`/`N>` for how many are hidden on each side (`<N!` when a hidden one has
    /// unread messages). Counts are `(unread)` or `(unread,highlights!)`.
    func drawStatusBar(_ model: ChatViewModel, row: Int, into frame: inout Frame) {
        let bar = style(reverse: true)
        frame.fill(row: row, columns: 0..<frame.columns, style: bar)
        var leftLimit = frame.columns
        // A transfer in progress first, its fullest form (with the connection when both fit), then
        // ever shorter forms of it alone, then the connection alone.
        var choices = [connectionText(model, withRoundTrip: true), connectionText(model, withRoundTrip: false)]
        if let forms = model.transfer?.forms() {
            if model.connection == .connected {
                choices = choices.map { forms[0] + " | " + $0 } + forms + choices
            } else {
                // A transfer stalled by a lost connection never hides that the connection is lost.
                let state = connectionText(model, withRoundTrip: false)
                choices = forms.map { $0 + " | " + state } + [state]
            }
        }
        if let right = choices.lazy.map({ Glyph.singleLine($0 + " ", style: bar) })
            .first(where: { $0.reduce(0) { $0 + $1.width } * 2 <= frame.columns }) {
            let rightWidth = right.reduce(0) { $0 + $1.width }
            frame.write(right, row: row, column: frame.columns - rightWidth, limit: frame.columns)
            leftLimit = frame.columns - rightWidth - 1
        }
        frame.write(statusLeftGlyphs(model, style: bar, width: leftLimit), row: row, column: 0, limit: leftLimit)
    }

    /// The head (server, nick) and the room list that show the most: every room if some form
    /// fits (names with counts, then, on narrow bars, only the numbers and counts of the rooms
    /// not shown), giving up the server's name and then the nick first; otherwise the form that
    /// shows the most rooms around the current one.
    func statusLeftGlyphs(_ model: ChatViewModel, style bar: CellStyle, width: Int = .max) -> [Glyph] {
        // No nick yet (the client is asking for one): no empty field for it.
        let nick = model.nick.isEmpty ? "" : "\(model.nick)\(model.awayReason == nil ? "" : " (away)") | "
        let heads = [" \(model.serverName) | \(nick)", " \(nick)", " "].map { Glyph.singleLine($0, style: bar) }
        let choices = [(0, false), (1, false), (0, true), (1, true), (2, false), (2, true)]
        var best: (glyphs: [Glyph], shown: Int)?
        for (headIndex, compact) in choices {
            let head = heads[headIndex]
            let headWidth = head.reduce(0) { $0 + $1.width }
            let rooms = roomListGlyphs(model, style: bar, width: width - headWidth, compact: compact)
            if rooms.shown == model.rooms.count { return head + rooms.glyphs }
            if rooms.fitsCurrent, rooms.shown > best?.shown ?? 0 { best = (head + rooms.glyphs, rooms.shown) }
        }
        if let best { return best.glyphs }
        return heads[2] + roomListGlyphs(model, style: bar, width: width - 1, compact: true).glyphs
    }

    /// The room labels that fit in `width` columns around the current room, how many rooms that
    /// is, and whether the current one is there whole. `compact` labels other rooms by number
    /// and counts only.
    func roomListGlyphs(_ model: ChatViewModel, style bar: CellStyle, width: Int,
                        compact: Bool = false) -> (glyphs: [Glyph], shown: Int, fitsCurrent: Bool) {
        guard !model.rooms.isEmpty else { return (Glyph.singleLine("(no room)", style: bar), 0, true) }
        let labels: [[Glyph]] = model.rooms.enumerated().map { index, room in
            let isCurrent = index == model.currentRoomIndex
            var label = compact && !isCurrent ? "\(index + 1)" : "\(index + 1):\(room.name)"
            if room.unreadCount > 0 || room.highlightCount > 0 {
                label += room.highlightCount > 0 ? "(\(room.unreadCount),\(room.highlightCount)!)" : "(\(room.unreadCount))"
            }
            let labelStyle = isCurrent ? style(bold: true, reverse: true)
                : room.highlightCount > 0 ? style(foreground: Palette.highlight, bold: true, reverse: true) : bar
            return Glyph.singleLine(isCurrent ? "[\(label)]" : label, style: labelStyle) + Glyph.singleLine(" ", style: bar)
        }
        let widths = labels.map { $0.reduce(0) { $0 + $1.width } }
        let current = min(max(0, model.currentRoomIndex), labels.count - 1)
        if widths.reduce(0, +) <= width { return (labels.flatMap { $0 }, labels.count, true) }

        func marker(_ hidden: Range<Int>, left: Bool) -> String {
            guard !hidden.isEmpty else { return "" }
            let active = hidden.contains { model.rooms[$0].unreadCount > 0 || model.rooms[$0].highlightCount > 0 }
            return left ? "<\(hidden.count)\(active ? "!" : "") " : "\(hidden.count)\(active ? "!" : "")> "
        }
        func totalWidth(_ range: Range<Int>) -> Int {
            widths[range].reduce(0, +) + marker(0..<range.lowerBound, left: true).count
                + marker(range.upperBound..<labels.count, left: false).count
        }
        var range = current..<(current + 1)
        // Grow towards the newer rooms first, then the older ones, while everything still fits.
        while true {
            var grown = false
            if range.upperBound < labels.count, totalWidth(range.lowerBound..<(range.upperBound + 1)) <= width {
                range = range.lowerBound..<(range.upperBound + 1)
                grown = true
            }
            if range.lowerBound > 0, totalWidth((range.lowerBound - 1)..<range.upperBound) <= width {
                range = (range.lowerBound - 1)..<range.upperBound
                grown = true
            }
            if !grown { break }
        }
        let glyphs = Glyph.singleLine(marker(0..<range.lowerBound, left: true), style: bar) + labels[range].flatMap { $0 }
            + Glyph.singleLine(marker(range.upperBound..<labels.count, left: false), style: bar)
        return (glyphs, range.count, totalWidth(range) <= width)
    }

    func connectionText(_ model: ChatViewModel, withRoundTrip: Bool) -> String {
        var text: String
        switch model.connection {
        case .connecting: text = "connecting"
        case .connected: text = "connected"
        case .reconnecting(let attempt): text = "reconnecting (attempt \(attempt))"
        case .disconnected(let reason): text = reason.isEmpty ? "disconnected" : "disconnected: \(reason)"
        case .waiting(let what): text = what
        }
        if withRoundTrip, let rtt = model.roundTripMilliseconds {
            text += " | rtt \(rtt) ms"
        }
        return text
    }
}
