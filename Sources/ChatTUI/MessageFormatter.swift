/// Turns a chat line into wrapped rows: `HH:MM` then, by kind, `<nick> text`, `*nick* text`
/// (private), `-- nick text` (event) or `!! text` (error). Rows after the first are indented to
/// the text after the timestamp. The number of rows never depends on colours, so scrolling can
/// count rows without knowing them.
struct MessageFormatter: Sendable {
    var colors: Bool
    var utcOffsetSeconds: Int

    static let timestampWidth = 6
    static let failedMarker = " [not sent]"

    func rows(for line: ChatLine, width: Int) -> [WrappedRow] {
        let (glyphs, prefixCount) = glyphs(for: line)
        return TextWrapper(width: width, indent: Self.timestampWidth).wrap(glyphs, unbreakablePrefix: prefixCount)
    }

    func rowCount(for line: ChatLine, width: Int) -> Int {
        rows(for: line, width: width).count
    }

    /// The line's glyphs, and how many of them come before the body (no word breaks there).
    func glyphs(for line: ChatLine) -> (glyphs: [Glyph], prefixCount: Int) {
        let nick = TextNeutralizer.singleLine.neutralize(line.nick)
        let text = TextNeutralizer.multiLine.neutralize(line.text)
        var glyphs = Glyph.glyphs(Self.clock(line.timestamp, utcOffsetSeconds: utcOffsetSeconds) + " ",
                                  style: color(Palette.dim))
        var prefixCount = glyphs.count
        let nickStyle = CellStyle(foreground: colors ? NickPalette.color(for: line.nick) : nil, bold: line.kind.isOwn)
        switch line.kind {
        case .message, .history, .ownPending, .ownConfirmed, .ownFailed:
            glyphs += Glyph.glyphs("<", style: .plain) + Glyph.glyphs(nick, style: nickStyle)
                + Glyph.glyphs("> ", style: .plain)
            prefixCount = glyphs.count
            glyphs += Glyph.glyphs(text, style: textStyle(for: line.kind))
            if line.kind == .ownFailed {
                glyphs += Glyph.glyphs(Self.failedMarker, style: CellStyle(foreground: colorIndex(Palette.error), bold: true))
            }
        case .directMessage:
            glyphs += Glyph.glyphs("*", style: .plain) + Glyph.glyphs(nick, style: nickStyle)
                + Glyph.glyphs("* ", style: .plain)
            prefixCount = glyphs.count
            glyphs += Glyph.glyphs(text, style: .plain)
        case .event:
            let subject = nick.isEmpty ? "" : nick + " "
            glyphs += Glyph.glyphs("-- " + subject + text, style: color(Palette.dim))
        case .error:
            glyphs += Glyph.glyphs("!! " + text, style: CellStyle(foreground: colorIndex(Palette.error), bold: true))
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
        let seconds = floorDivision(milliseconds, 1000) + Int64(utcOffsetSeconds)
        let minuteOfDay = Int(floorDivision(seconds, 60) % 1440 + 1440) % 1440
        let hours = minuteOfDay / 60
        let minutes = minuteOfDay % 60
        return (hours < 10 ? "0" : "") + String(hours) + ":" + (minutes < 10 ? "0" : "") + String(minutes)
    }

    static func floorDivision(_ dividend: Int64, _ divisor: Int64) -> Int64 {
        let quotient = dividend / divisor
        return dividend % divisor < 0 ? quotient - 1 : quotient
    }
}
