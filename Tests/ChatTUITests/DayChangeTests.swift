import Testing

@testable import ChatTUI

/// Issue 24, dates: a rule where the local day changes between two lines, and above replayed
/// lines that open a buffer, kept right when lines arrive out of order or older ones come first.
struct DayChangeTests {
    static let day: Int64 = 86_400_000
    /// 2025-11-30 12:34 UTC, the day after, and 23:30 UTC of the first.
    let firstDay = sampleTime
    var nextDay: Int64 { firstDay + Self.day }
    var lateFirstDay: Int64 { firstDay - firstDay % Self.day + 23 * 3_600_000 + 30 * 60_000 }

    func line(_ text: String, at time: Int64, kind: ChatLine.Kind = .message) -> ChatLine {
        ChatLine(timestamp: time, nick: "bob", text: text, kind: kind)
    }

    func texts(_ model: ChatViewModel, _ room: String = "lobby") -> [String] {
        model.rooms[model.roomIndex(named: room)!].lines.map { $0.kind == .dayChange ? "── " + $0.text : $0.text }
    }

    @Test func aRuleWhereTheDayChangesAndNowhereElse() {
        var model = ChatViewModel(serverName: "s", nick: "alice")
        model.append(line("one", at: firstDay), to: "lobby")
        model.append(line("two", at: firstDay + 60_000), to: "lobby")
        model.append(line("three", at: nextDay), to: "lobby")
        model.append(line("four", at: nextDay + 1), to: "lobby")
        #expect(texts(model) == ["one", "two", "── 2025-12-01", "three", "four"])
    }

    /// The day is the local one: 23:30 UTC is the next day at UTC+1.
    @Test func theDayIsTheLocalOne() {
        var utc = ChatViewModel(serverName: "s", nick: "alice")
        var paris = ChatViewModel(serverName: "s", nick: "alice")
        paris.utcOffsetSeconds = 3_600
        for index in [0, 1] {
            var model = index == 0 ? utc : paris
            model.append(line("noon", at: firstDay), to: "lobby")
            model.append(line("late", at: lateFirstDay), to: "lobby")
            if index == 0 { utc = model } else { paris = model }
        }
        #expect(texts(utc) == ["noon", "late"])
        #expect(texts(paris) == ["noon", "── 2025-12-01", "late"])
    }

    /// A replay opening a buffer says its day above it; rules do not count as unread, and a
    /// search or /lastlog never finds one.
    @Test func replayedLinesSayTheirDay() {
        var model = ChatViewModel(serverName: "s", nick: "alice")
        model.openRoom("lobby")
        model.append(line("old", at: firstDay, kind: .history), to: "dev")
        model.append(line("new", at: nextDay), to: "dev")
        #expect(texts(model, "dev") == ["── 2025-11-30", "old", "── 2025-12-01", "new"])
        #expect(model.rooms[model.roomIndex(named: "dev")!].unreadCount == 1)
        model.selectRoom(at: model.roomIndex(named: "dev")!)
        let found = model.search("2025", older: true)
        #expect(!found)
        model.showLastlog("bob")
        #expect(texts(model, "=lastlog").dropFirst() == ["── 2025-11-30", "old", "── 2025-12-01", "new"])
    }

    /// Replayed lines taking their place in time, and older history above: the rules follow.
    @Test func rulesFollowLinesInsertedInTime() {
        var model = ChatViewModel(serverName: "s", nick: "alice")
        model.append(line("today", at: nextDay), to: "lobby")
        model.insertInTimeOrder(line("missed yesterday", at: firstDay, kind: .history), to: "lobby")
        #expect(texts(model) == ["── 2025-11-30", "missed yesterday", "── 2025-12-01", "today"])
        model.prependHistory([line("older", at: firstDay - 2 * Self.day, kind: .history)], to: "lobby")
        #expect(texts(model) == ["── 2025-11-28", "older", "── 2025-11-30", "missed yesterday", "── 2025-12-01", "today"])
        model.insertInTimeOrder(line("same day", at: firstDay + 1, kind: .history), to: "lobby")
        #expect(texts(model) == ["── 2025-11-28", "older", "── 2025-11-30", "missed yesterday", "same day", "── 2025-12-01", "today"])
    }

    /// A scrolled view stays on the line it showed while rules come and go above it.
    @Test func aScrolledViewStaysOnItsLine() {
        var model = ChatViewModel(serverName: "s", nick: "alice")
        for minute in 0..<30 { model.append(line("line \(minute)", at: nextDay + Int64(minute) * 60_000), to: "lobby") }
        _ = model.scrollUp(rows: 10, paneRows: 5) { _ in 1 }
        let anchored = model.currentRoom!.lines[model.currentRoom!.scrollAnchor!.lineIndex].text
        model.prependHistory([line("yesterday", at: firstDay, kind: .history)], to: "lobby")
        #expect(model.currentRoom!.lines[model.currentRoom!.scrollAnchor!.lineIndex].text == anchored)
        #expect(texts(model).prefix(4) == ["── 2025-11-30", "yesterday", "── 2025-12-01", "line 0"])
    }

    /// The rule is drawn across the pane, the day in its middle.
    @Test func theRuleIsDrawnAcrossThePane() {
        var model = sampleModel()
        model.append(line("the next day", at: sampleTime + Self.day), to: model.currentRoom!.name)
        let screen = renderOnScreen(model, editor: makeEditor(""), size: TerminalSize(columns: 60, rows: 20)).screen.textLines
        #expect(screen.contains { $0.contains("─ 2025-12-01 ─") && $0.hasPrefix("──") }, "\(screen)")
    }
}
