/// Day rules (issue 24, dates): `──── 2026-12-08 ────` where the local day changes between two
/// lines of a buffer, and above the first line of a buffer that begins with what came from before
/// (a replay, stored private messages, older history), so a replayed `14:03` never reads as today.
/// The rules are lines of the buffer (``ChatLine/Kind/dayChange``): scrolling counts them like
/// the read marker, searches and unread counts skip them.
extension ChatViewModel {
    /// The local day of a line.
    func day(of line: ChatLine) -> Int64 {
        TimestampFormat.day(of: line.timestamp, utcOffsetSeconds: utcOffsetSeconds)
    }

    /// The rule before the first line of `line`'s day.
    func dayChange(to line: ChatLine) -> ChatLine {
        ChatLine(timestamp: line.timestamp, nick: "", text: TimestampFormat.date.format(line.timestamp, utcOffsetSeconds: utcOffsetSeconds),
                 kind: .dayChange)
    }

    /// Whether `line`, appended to the room at `index`, needs a rule above it: its day is not the
    /// day of the last line, or it is replayed history opening an empty buffer.
    func needsDayChange(before line: ChatLine, in index: Int) -> Bool {
        guard !line.isRule else { return false }
        guard let previous = rooms[index].lines.last(where: { !$0.isRule }) else {
            return line.kind == .history && rooms[index].lines.last?.kind != .dayChange
        }
        return day(of: previous) != day(of: line)
    }

    /// `lines` with a rule wherever the day changes between two of them (and above the first
    /// when `ruleOnTop`), and no other rule; for each old index, the index its line now has (a
    /// rule that went: the next line's).
    func withDayChanges(_ lines: [ChatLine], ruleOnTop: Bool) -> (lines: [ChatLine], newIndex: [Int]) {
        var result: [ChatLine] = []
        result.reserveCapacity(lines.count + 2)
        var newIndex: [Int] = []
        newIndex.reserveCapacity(lines.count)
        var lastDay: Int64?
        for line in lines {
            guard line.kind != .dayChange else {
                newIndex.append(result.count)
                continue
            }
            if !line.isRule {
                let lineDay = day(of: line)
                if lastDay.map({ $0 != lineDay }) ?? ruleOnTop { result.append(dayChange(to: line)) }
                lastDay = lineDay
            }
            newIndex.append(result.count)
            result.append(line)
        }
        return (result, newIndex.map { min($0, max(0, result.count - 1)) })
    }

    /// Puts a room's rules right after lines were inserted above or among others, keeping a
    /// scrolled view and a search on the lines they showed. A rule on top stays on top; with
    /// `ruleOnTop` (older lines came first) or a replayed first line, there is one.
    mutating func placeDayChanges(in index: Int, ruleOnTop: Bool) {
        let before = rooms[index].lines
        let firstLine = before.first(where: { !$0.isRule })
        let onTop = ruleOnTop || before.first?.kind == .dayChange || firstLine?.kind == .history
        let (after, newIndex) = withDayChanges(before, ruleOnTop: onTop)
        guard after != before else { return }
        rooms[index].lines = after
        if let anchor = rooms[index].scrollAnchor, anchor.lineIndex < newIndex.count {
            rooms[index].scrollAnchor = ScrollAnchor(lineIndex: newIndex[anchor.lineIndex], hiddenRows: anchor.hiddenRows)
        }
        if let match = rooms[index].searchMatch, match.lineIndex < newIndex.count {
            rooms[index].searchMatch = (newIndex[match.lineIndex], match.term)
        }
    }
}
