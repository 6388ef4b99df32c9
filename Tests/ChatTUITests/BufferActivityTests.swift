import Testing

@testable import ChatTUI

/// Unread and highlight counts, the read marker, private conversations, search and /clear.
struct BufferActivityTests {
    static func message(_ text: String, from nick: String = "bob", highlight: Bool = false) -> ChatLine {
        ChatLine(timestamp: sampleTime, nick: nick, text: text, kind: .message, isHighlight: highlight)
    }

    /// Highlights count apart from unread messages in a room not shown; showing the room clears both.
    @Test func highlightsCountApart() {
        var model = sampleModel()
        model.append(Self.message("alice: look", highlight: true), to: "dev")
        #expect(model.room(named: "dev")?.unreadCount == 4)
        #expect(model.room(named: "dev")?.highlightCount == 1)
        #expect(model.totalHighlights == 1)
        model.selectRoom(named: "dev")
        #expect(model.room(named: "dev")?.highlightCount == 0)
        #expect(model.totalHighlights == 0)
    }

    /// Leaving a room arms its read marker: the first unread line after it gets the marker above,
    /// once; leaving again moves it.
    @Test func readMarkerGoesWhereReadingStopped() {
        var model = sampleModel()
        model.selectRoom(named: "dev")
        model.selectRoom(named: "lobby")
        model.append(Self.message("first new"), to: "dev")
        model.append(Self.message("second new"), to: "dev")
        let kinds = model.room(named: "dev")?.lines.map(\.kind) ?? []
        #expect(kinds.suffix(3) == [.readMarker, .message, .message])
        #expect(kinds.filter { $0 == .readMarker }.count == 1)
        #expect(model.room(named: "dev")?.unreadCount == 2)
        model.selectRoom(named: "dev")
        model.selectRoom(named: "lobby")
        model.append(Self.message("third new"), to: "dev")
        let moved = model.room(named: "dev")?.lines ?? []
        #expect(moved.filter { $0.kind == .readMarker }.count == 1)
        #expect(moved.suffix(2).map(\.kind) == [.readMarker, .message])
    }

    /// The read marker is a rule across the pane, and is never unread or searched.
    @Test func readMarkerIsDrawnAsARule() {
        var model = sampleModel()
        model.selectRoom(named: "dev")
        model.selectRoom(named: "lobby")
        model.append(Self.message("after"), to: "dev")
        model.selectRoom(named: "dev")
        let (_, screen, _) = renderOnScreen(model, editor: LineEditor(), size: TerminalSize(columns: 80, rows: 12))
        let rule = screen.textLines.first { $0.contains(" new ") } ?? ""
        #expect(rule.hasPrefix("──") && rule.contains("── new ──"))
        let marker = model.search("new", older: false)
        let found = model.search("after", older: false)
        #expect(!marker && found)
        #expect(model.currentRoom?.lines[model.currentRoom?.searchMatch?.lineIndex ?? 0].kind == .message)
    }

    /// Alt-Tab goes to the next room with highlights first, else with unread messages.
    @Test func nextRoomWithActivity() {
        var model = sampleModel()
        model.openRoom("ops")
        model.openQuery("carol")
        model.append(ChatLine(timestamp: sampleTime, nick: "carol", text: "psst", kind: .directMessage, isHighlight: true), to: "@carol")
        let first = model.selectNextRoomWithActivity()
        #expect(first && model.currentRoom?.name == "@carol")
        let second = model.selectNextRoomWithActivity()
        #expect(second && model.currentRoom?.name == "dev")
        let none = model.selectNextRoomWithActivity()
        #expect(!none)
    }

    /// A private conversation is found by nick in any case and follows the other side's renames.
    @Test func queries() {
        var model = sampleModel()
        let index = model.openQuery("Bob")
        #expect(model.openQuery("bob") == index)
        #expect(model.rooms[index].isQuery && model.rooms[index].queryNick == "Bob")
        model.renameQuery(from: "bob", to: "robert")
        #expect(model.queryIndex("robert") == index)
        #expect(model.rooms[index].name == "@robert")
        #expect(!(model.room(named: "lobby")?.isQuery ?? true))
    }

    /// /search finds the newest line with the word, then older ones, and scrolls to it; /clear empties the room.
    @Test func searchAndClear() {
        var model = ChatViewModel(serverName: "s", nick: "me")
        for index in 0..<40 {
            model.append(Self.message(index % 10 == 3 ? "deploy \(index)" : "chatter \(index)"), to: "lobby")
        }
        let newest = model.search("DEPLOY", older: false)
        #expect(newest && model.currentRoom?.searchMatch?.lineIndex == 33)
        #expect(model.currentRoom?.scrollAnchor == ScrollAnchor(lineIndex: 33, hiddenRows: 0))
        let older = model.search("DEPLOY", older: true)
        #expect(older && model.currentRoom?.searchMatch?.lineIndex == 23)
        let (frame, screen, _) = renderOnScreen(model, editor: LineEditor(), size: TerminalSize(columns: 60, rows: 10))
        let row = screen.textLines.firstIndex { $0.contains("deploy 23") } ?? 0
        #expect(frame[row, 12].style.reverse)
        #expect(screen.textLines[8].contains("-- 16 more below --"))
        let rest = (0..<2).map { _ in model.search("deploy", older: true) }
        #expect(rest == [true, true])
        let beyond = model.search("deploy", older: true)
        let absent = model.search("nothing like this", older: false)
        #expect(!beyond && !absent)
        model.scrollToNewest()
        #expect(model.currentRoom?.searchMatch == nil)
        model.clearLines(in: "lobby")
        #expect(model.currentRoom?.lines.isEmpty == true)
    }

    /// Actions, private messages and highlights are shown as such.
    @Test func lineStyles() {
        var model = ChatViewModel(serverName: "s", nick: "alice")
        model.append(ChatLine(timestamp: sampleTime, nick: "bob", text: "waves", kind: .message, isAction: true), to: "lobby")
        model.append(ChatLine(timestamp: sampleTime, nick: "alice", text: "psst", kind: .ownConfirmed, isPrivate: true), to: "lobby")
        model.append(Self.message("alice: look", highlight: true), to: "lobby")
        let (frame, screen, _) = renderOnScreen(model, editor: LineEditor(), size: TerminalSize(columns: 50, rows: 8))
        #expect(screen.textLines[3] == "12:34 * bob waves")
        #expect(screen.textLines[4] == "12:34 *alice* psst")
        #expect(screen.textLines[5] == "12:34 <bob> alice: look")
        #expect(frame[5, 7].style.reverse)
        #expect(frame[5, 12].style.bold)
    }
}

/// The status bar with many rooms and on narrow terminals.
struct StatusBarTests {
    static func manyRooms(current: Int) -> ChatViewModel {
        var model = ChatViewModel(serverName: "qchat.example", nick: "alice")
        model.connection = .connected
        for index in 1...14 { model.openRoom("room\(index)") }
        model.append(ChatLine(timestamp: sampleTime, nick: "bob", text: "hi", kind: .message), to: "room2")
        model.append(ChatLine(timestamp: sampleTime, nick: "bob", text: "alice!", kind: .message, isHighlight: true), to: "room13")
        model.selectRoom(at: current)
        return model
    }

    /// However many rooms, the current one is always on the bar, with markers for those hidden
    /// (`!` when one of them has activity).
    @Test func currentRoomAlwaysVisible() {
        for current in [0, 6, 11, 13] {
            let model = Self.manyRooms(current: current)
            let (_, screen, _) = renderOnScreen(model, editor: LineEditor(), size: TerminalSize(columns: 80, rows: 10))
            let bar = screen.textLines[0]
            #expect(bar.contains("[\(current + 1):room\(current + 1)]"), "\(bar)")
        }
        // 80 columns take every room by number; 40 show the current one's neighbours and markers.
        let wide = renderOnScreen(Self.manyRooms(current: 6), editor: LineEditor(), size: TerminalSize(columns: 80, rows: 10)).screen.textLines[0]
        #expect(wide.contains(" 2(1) ") && wide.contains(" 13(1,1!) 14 "), "\(wide)")
        let bar = renderOnScreen(Self.manyRooms(current: 6), editor: LineEditor(), size: TerminalSize(columns: 40, rows: 10)).screen.textLines[0]
        #expect(bar.contains("[7:room7]") && bar.contains("!> ") && bar.contains("<"), "\(bar)")
    }

    /// At 40 columns the counts still show: the server's name and the nick give way, then the
    /// names of the rooms not shown.
    @Test func countsVisibleAtFortyColumns() {
        var model = ChatViewModel(serverName: "qchat.example", nick: "alice")
        model.connection = .connected
        model.roundTripMilliseconds = 3
        model.openRoom("lobby")
        model.openRoom("dev")
        model.openQuery("bob")
        for _ in 0..<5 { model.append(ChatLine(timestamp: sampleTime, nick: "x", text: "y", kind: .message), to: "dev") }
        model.append(ChatLine(timestamp: sampleTime, nick: "bob", text: "psst", kind: .directMessage, isHighlight: true), to: "@bob")
        let (_, screen, _) = renderOnScreen(model, editor: LineEditor(), size: TerminalSize(columns: 40, rows: 10))
        let bar = screen.textLines[0]
        #expect(bar.hasPrefix(" [1:lobby] 2(5) 3(1,1!) "), "'\(bar)'")
        model.selectRoom(named: "dev")
        let wider = renderOnScreen(model, editor: LineEditor(), size: TerminalSize(columns: 60, rows: 10)).screen.textLines[0]
        #expect(wider.hasPrefix(" alice | 1:lobby [2:dev] 3:@bob(1,1!) "), "'\(wider)'")
    }
}
