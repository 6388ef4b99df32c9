extension Renderer {
    /// ` server | nick | [1:lobby] 2:dev(3)` on the left, `connected | rtt 23 ms ` on the right,
    /// in reverse video. The right part takes at most half the bar (without the RTT if need
    /// be); the left part is cut to what remains.
    func drawStatusBar(_ model: ChatViewModel, row: Int, into frame: inout Frame) {
        let bar = style(reverse: true)
        frame.fill(row: row, columns: 0..<frame.columns, style: bar)
        var leftLimit = frame.columns
        let choices = [connectionText(model, withRoundTrip: true), connectionText(model, withRoundTrip: false)]
        if let right = choices.lazy.map({ Glyph.singleLine($0 + " ", style: bar) })
            .first(where: { $0.reduce(0) { $0 + $1.width } * 2 <= frame.columns }) {
            let rightWidth = right.reduce(0) { $0 + $1.width }
            frame.write(right, row: row, column: frame.columns - rightWidth, limit: frame.columns)
            leftLimit = frame.columns - rightWidth - 1
        }
        frame.write(statusLeftGlyphs(model, style: bar), row: row, column: 0, limit: leftLimit)
    }

    func statusLeftGlyphs(_ model: ChatViewModel, style bar: CellStyle) -> [Glyph] {
        var glyphs = Glyph.singleLine(" \(model.serverName) | \(model.nick) | ", style: bar)
        if model.rooms.isEmpty {
            glyphs += Glyph.singleLine("(no room)", style: bar)
        }
        for (index, room) in model.rooms.enumerated() {
            var label = "\(index + 1):\(room.name)"
            if room.unreadCount > 0 { label += "(\(room.unreadCount))" }
            if index == model.currentRoomIndex {
                glyphs += Glyph.singleLine("[\(label)]", style: style(bold: true, reverse: true))
            } else {
                glyphs += Glyph.singleLine(label, style: bar)
            }
            glyphs += Glyph.singleLine(" ", style: bar)
        }
        return glyphs
    }

    func connectionText(_ model: ChatViewModel, withRoundTrip: Bool) -> String {
        var text: String
        switch model.connection {
        case .connecting: text = "connecting"
        case .connected: text = "connected"
        case .reconnecting(let attempt): text = "reconnecting (attempt \(attempt))"
        case .disconnected(let reason): text = reason.isEmpty ? "disconnected" : "disconnected: \(reason)"
        }
        if withRoundTrip, let rtt = model.roundTripMilliseconds {
            text += " | rtt \(rtt) ms"
        }
        return text
    }
}
