/// Turns a chat line into wrapped rows: the timestamp then, by kind, `<nick> text`, `* nick text`
/// (an action), `*nick* text` (private), `-- nick text` (event) or `!! text` (error); the read
/// marker is a rule across the pane. A message of version 1.2 may carry more (section 15): the
/// message it replies to quoted before its text (`[re bob: the start of it] `), `(edited)` after
/// it, `(message removed)` instead of a withdrawn one, and its reactions after it (`  👍 2`). Rows after the first are indented to the text after the
/// timestamp. The number of rows never depends on colours or emphasis, so scrolling can count rows
/// without knowing them.
struct MessageFormatter: Sendable {
    var colors: Bool
    var utcOffsetSeconds: Int
    var timestamp: TimestampFormat = .minutes
    /// Each message's number (its seq) in brackets before its nick (`/numbers`).
    var numbers = false

    static let failedMarker = " [not sent]"
    static let editedMarker = " (edited)"
    static let readMarkerLabel = " new "

    /// Columns of the timestamp and the space after it.
    var timestampWidth: Int { timestamp.isEmpty ? 0 : timestamp.width + 1 }

    /// `emphasized` marks the line a search found.
    func rows(for line: ChatLine, width: Int, emphasized: Bool = false) -> [WrappedRow] {
        if line.kind == .readMarker { return [readMarkerRow(width: width)] }
        if line.kind == .dayChange {
            return [ruleRow(" " + TextNeutralizer.singleLine.neutralize(line.text) + " ", width: width, color: Palette.dim)]
        }
        var (glyphs, prefixCount) = glyphs(for: line, emphasized: emphasized)
        let body = String(glyphs[prefixCount...].map(\.character))
        let urls = URLFinder.ranges(in: body).map { ($0.lowerBound + prefixCount)..<($0.upperBound + prefixCount) }
        // Each address's cells link to it (OSC 8), so the terminal opens it whole, however cut.
        for range in urls {
            let url = String(glyphs[range].map(\.character))
            guard url.utf8.count <= CellStyle.linkLimit else { continue }
            for index in range { glyphs[index].style.link = url }
        }
        return TextWrapper(width: width, indent: timestampWidth).wrap(glyphs, unbreakablePrefix: prefixCount, urls: urls)
    }

    func rowCount(for line: ChatLine, width: Int) -> Int {
        line.isRule ? 1 : rows(for: line, width: width).count
    }

    /// `───── new ─────` across the pane.
    func readMarkerRow(width: Int) -> WrappedRow {
        ruleRow(Self.readMarkerLabel, width: width, color: Palette.marker)
    }

    /// `───── label ─────` across the pane (the label left out when it does not fit).
    func ruleRow(_ text: String, width: Int, color: UInt8) -> WrappedRow {
        let label = text.count + 2 <= width ? text : ""
        let left = max(0, (width - label.count) / 2)
        let right = max(0, width - label.count - left)
        let rule = String(repeating: "─", count: left) + label + String(repeating: "─", count: right)
        return WrappedRow(indent: 0, glyphs: Glyph.glyphs(rule, style: CellStyle(foreground: colorIndex(color), bold: true)))
    }

    /// The line's glyphs, and how many of them come before the body (no word breaks there).
    func glyphs(for line: ChatLine, emphasized: Bool = false) -> (glyphs: [Glyph], prefixCount: Int) {
        let nick = TextNeutralizer.singleLine.neutralize(line.nick)
        let text = TextNeutralizer.multiLine.neutralize(line.text)
        var glyphs = timestamp.isEmpty ? []
            : Glyph.glyphs(timestamp.format(line.timestamp, utcOffsetSeconds: utcOffsetSeconds) + " ", style: color(Palette.dim))
        var prefixCount = glyphs.count
        var nickStyle = CellStyle(foreground: colors ? NickPalette.color(for: line.nick) : nil, bold: line.kind.isOwn)
        if line.isHighlight {
            nickStyle = CellStyle(foreground: colorIndex(Palette.highlight), bold: true, reverse: true)
        }
        var bodyStyle = textStyle(for: line.kind)
        if line.isHighlight { bodyStyle.bold = true }
        if emphasized { bodyStyle.reverse = true }
        switch line.kind {
        case .message, .history, .ownPending, .ownConfirmed, .ownFailed, .directMessage:
            let privateStyle = CellStyle(foreground: colorIndex(Palette.privateMessage))
            if numbers, let seq = line.seq { glyphs += Glyph.glyphs("[\(seq)] ", style: color(Palette.dim)) }
            if line.isAction {
                glyphs += Glyph.glyphs("* ", style: line.isPrivate ? privateStyle : .plain)
                    + Glyph.glyphs(nick, style: nickStyle) + Glyph.glyphs(" ", style: .plain)
            } else if line.isPrivate {
                glyphs += Glyph.glyphs("*", style: privateStyle) + Glyph.glyphs(nick, style: nickStyle)
                    + Glyph.glyphs("* ", style: privateStyle)
            } else {
                glyphs += Glyph.glyphs("<", style: .plain) + Glyph.glyphs(nick, style: nickStyle) + Glyph.glyphs("> ", style: .plain)
            }
            prefixCount = glyphs.count
            if let reply = line.reply {
                let quoted = TextNeutralizer.singleLine.neutralize(reply.nick) + ": " + TextNeutralizer.singleLine.neutralize(reply.excerpt)
                glyphs += Glyph.glyphs("[re " + quoted + "] ", style: color(Palette.dim))
            }
            if line.isRedacted {
                glyphs += Glyph.glyphs(ChatLine.removedText, style: color(Palette.dim))
            } else {
                glyphs += Glyph.glyphs(text, style: bodyStyle)
            }
            if line.isEdited && !line.isRedacted { glyphs += Glyph.glyphs(Self.editedMarker, style: color(Palette.dim)) }
            for reaction in line.reactions {
                glyphs += Glyph.glyphs("  " + TextNeutralizer.singleLine.neutralize(reaction.value) + " " + String(reaction.by.count),
                                       style: color(Palette.dim))
            }
            if line.kind == .ownFailed {
                glyphs += Glyph.glyphs(Self.failedMarker, style: CellStyle(foreground: colorIndex(Palette.error), bold: true))
            }
        case .event:
            let subject = nick.isEmpty ? "" : nick + " "
            var style = color(Palette.dim)
            if emphasized { style.reverse = true }
            glyphs += Glyph.glyphs("-- " + subject + text, style: style)
        case .error:
            glyphs += Glyph.glyphs("!! " + text, style: CellStyle(foreground: colorIndex(Palette.error), bold: true, reverse: emphasized))
        case .readMarker, .dayChange:
            break
        }
        return (glyphs, prefixCount)
    }

    func textStyle(for kind: ChatLine.Kind) -> CellStyle {
        switch kind {
        case .ownPending, .history: return color(Palette.dim)
        default: return .plain
        }
    }

    func color(_ index: UInt8) -> CellStyle {
        CellStyle(foreground: colorIndex(index))
    }

    func colorIndex(_ index: UInt8) -> UInt8? {
        colors ? index : nil
    }

    /// `HH:MM` of a Unix millisecond time shifted by the zone offset; negative times wrap.
    static func clock(_ milliseconds: Int64, utcOffsetSeconds: Int) -> String {
        TimestampFormat.minutes.format(milliseconds, utcOffsetSeconds: utcOffsetSeconds)
    }
}
