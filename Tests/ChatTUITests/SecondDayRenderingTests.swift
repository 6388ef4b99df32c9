import Testing

@testable import ChatTUI

/// Issue 24: what a second working day found on the screen itself, checked on the renderer's
/// frames through the virtual terminal.
struct SecondDayRenderingTests {
    static let size = TerminalSize(columns: 100, rows: 20)

    /// Defect 10: a transfer in progress when the connection is lost: the bar says
    /// `reconnecting`, the transfer's figures giving way (it hid the state, frozen at 49%).
    @Test func theTransferBarNeverHidesALostConnection() {
        var model = sampleModel()
        model.transfer = TransferProgress(isUpload: true, name: "holiday-photos.tar", fraction: 0.49, amounts: "28.0 MiB/57.0 MiB",
                                          rate: "8.1 MiB/s", timeLeft: "4 s left")
        model.connection = .reconnecting(attempt: 1)
        for columns in [60, 100, 200] {
            let bar = renderOnScreen(model, editor: makeEditor(""), size: TerminalSize(columns: columns, rows: 10)).screen.textLines[0]
            #expect(bar.contains("reconnecting (attempt 1)"), "\(columns) columns: \(bar)")
        }
        model.connection = .connected
        let connected = renderOnScreen(model, editor: makeEditor(""), size: Self.size).screen.textLines[0]
        #expect(connected.contains("↑ holiday-photos.tar [████▉     ] 49%"), "\(connected)")
    }

    /// Defect 6: away is on the status bar, after the nick, until /back.
    @Test func awayIsOnTheStatusBar() {
        var model = sampleModel()
        model.awayReason = "lunch"
        #expect(renderOnScreen(model, editor: makeEditor(""), size: Self.size).screen.textLines[0].hasPrefix(" qchat.example | alice (away) | "))
        model.awayReason = nil
        #expect(renderOnScreen(model, editor: makeEditor(""), size: Self.size).screen.textLines[0].hasPrefix(" qchat.example | alice | "))
    }

    /// Defect 16: a private conversation has no (empty) member pane: its lines take the width.
    @Test func aPrivateConversationHasNoMemberPane() {
        var model = sampleModel()
        let index = model.openQuery("bob")
        model.selectRoom(at: index)
        model.append(ChatLine(timestamp: sampleTime, nick: "bob", text: String(repeating: "x", count: 90), kind: .directMessage), to: "@bob")
        let screen = renderOnScreen(model, editor: makeEditor(""), size: Self.size).screen
        #expect(!screen.textLines.joined().contains("Members"), "\(screen.textLines)")
        #expect(screen.textLines.contains { $0.hasSuffix(String(repeating: "x", count: 80)) }, "\(screen.textLines)")
    }

    /// Defect 16: a topic or a nick too long for its place ends with `…`, never just cut.
    @Test func longTopicsAndNicksEndWithAnEllipsis() {
        var model = sampleModel()
        model.setMembers(["alice", "averyveryverylongnickname"], in: "lobby")
        model.setRoomInfo(topic: String(repeating: "topic ", count: 30), modes: [], operators: [], identified: [], in: "lobby")
        let screen = renderOnScreen(model, editor: makeEditor(""), size: Self.size).screen
        let layout = ScreenLayout(size: Self.size, showsTopic: true)
        #expect(text(of: screen.frame, row: 1, columns: 0..<layout.messageWidth).hasSuffix("…"), "\(screen.textLines[1])")
        let members = screen.textLines.map { String($0.suffix(layout.memberColumns!.count)) }
        #expect(members.contains { $0.hasPrefix(" averyveryverylong") && $0.hasSuffix("…") }, "\(members)")
    }

    /// Defect 16: `-- N more below --` stays under the message pane, off the member column.
    @Test func moreBelowStaysUnderTheMessagePane() {
        var model = sampleModel()
        for number in 1...60 { model.append(ChatLine(timestamp: sampleTime, nick: "bob", text: "line \(number)", kind: .message), to: "lobby") }
        let renderer = Renderer(options: RenderOptions(colors: false, utcOffsetSeconds: 0, now: sampleTime))
        _ = renderer.pageUp(&model, size: Self.size)
        let screen = renderOnScreen(model, editor: makeEditor(""), size: Self.size).screen
        let layout = renderer.layout(for: Self.size, model: model)
        let typingRow = screen.textLines[Self.size.rows - 2]
        #expect(typingRow.contains("more below --"), "\(typingRow)")
        #expect(typingRow.count <= layout.messageWidth, "\(typingRow)")
    }

    /// Defect 16: a notice (what `/search` did not find, what `/history` brought) is shown on the
    /// typing line, not added to the room's scrollback.
    @Test func noticesAreNotScrollback() {
        var model = sampleModel()
        let lines = model.currentRoom?.lines.count
        model.notice = "no line with 'deploy'"
        let screen = renderOnScreen(model, editor: makeEditor(""), size: Self.size).screen
        #expect(screen.textLines[Self.size.rows - 2] == "no line with 'deploy'")
        #expect(model.currentRoom?.lines.count == lines)
    }

    /// Defect 16: while the client asks for a nick, the bar says so, not `disconnected`.
    @Test func choosingANickIsNotDisconnected() {
        var model = sampleModel()
        model.connection = .waiting("choose a nick")
        let bar = renderOnScreen(model, editor: makeEditor(""), size: Self.size).screen.textLines[0]
        #expect(bar.contains("choose a nick"), "\(bar)")
        #expect(!bar.contains("disconnected"), "\(bar)")
    }

    /// Defect 9: `/buffer NAME` finds a buffer by name or part of one; `/buffer` lists them.
    @Test func buffersByName() {
        var model = sampleModel()
        for room in (1...19).map({ "r" + ($0 < 10 ? "0" : "") + "\($0)" }) { model.openRoom(room) }
        model.openQuery("Bob")
        #expect(model.bufferIndex(matching: "r12").map { model.rooms[$0].name } == "r12")
        #expect(model.bufferIndex(matching: "#dev").map { model.rooms[$0].name } == "dev")
        #expect(model.bufferIndex(matching: "bob").map { model.rooms[$0].name } == "@Bob")
        #expect(model.bufferIndex(matching: "1").map { model.rooms[$0].name } == "r01")
        #expect(model.bufferIndex(matching: "zzz") == nil)
        let list = model.bufferList()
        #expect(list.hasPrefix("buffers: [1:lobby] 2:dev"), "\(list)")
        #expect(list.contains(" 14:r12 ") && list.hasSuffix(" 22:@Bob"), "\(list)")
    }

    /// Defect 15: lines replayed after a reconnect take their place in time, before the notes of
    /// the reconnect (they came after `connected`, out of time order).
    @Test func replayedLinesTakeTheirPlaceInTime() {
        var model = ChatViewModel(serverName: "s", nick: "alice")
        model.openRoom("lobby")
        model.append(ChatLine(timestamp: 1000, nick: "bob", text: "before", kind: .message), to: "lobby")
        model.append(ChatLine(timestamp: 2000, nick: "", text: "connection lost", kind: .event), to: "lobby")
        model.append(ChatLine(timestamp: 5000, nick: "", text: "connected", kind: .event), to: "lobby")
        model.insertInTimeOrder(ChatLine(timestamp: 3000, nick: "bob", text: "during", kind: .history), to: "lobby")
        model.insertInTimeOrder(ChatLine(timestamp: 6000, nick: "bob", text: "after", kind: .history), to: "lobby")
        #expect(model.currentRoom?.lines.map(\.text) == ["before", "connection lost", "during", "connected", "after"])
    }
}

/// `/lastlog WORD` (issue 24, habits): every matching line in a view of its own.
struct LastlogTests {
    @Test func everyMatchInAView() {
        var model = sampleModel()
        model.append(ChatLine(timestamp: sampleTime, nick: "carol", text: "deploy at noon", kind: .message), to: "lobby")
        model.append(ChatLine(timestamp: sampleTime, nick: "bob", text: "the DEPLOY failed", kind: .message), to: "lobby")
        #expect(model.showLastlog("deploy") == 2)
        #expect(model.currentRoom?.name == "=lastlog" && model.currentRoom?.isView == true)
        #expect(model.currentRoom?.lines.map(\.text) == ["2 lines of lobby with 'deploy' (/close closes this view)", "2025-11-30", "deploy at noon",
                                                        "the DEPLOY failed"])
        let screen = renderOnScreen(model, editor: makeEditor(""), size: TerminalSize(columns: 100, rows: 20)).screen
        #expect(!screen.textLines.joined().contains("Members"))
        model.selectRoom(named: "lobby")
        #expect(model.showLastlog("nothing-like-it") == 0 && model.rooms.filter(\.isView).count == 1)
    }
}
