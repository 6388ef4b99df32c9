import Testing

@testable import ChatTUI

struct RendererContentTests {
    let size = TerminalSize(columns: 80, rows: 24)

    /// Timestamps show local HH:MM with the caller's zone offset.
    @Test func timestampsUseTheOffset() {
        let options = RenderOptions(utcOffsetSeconds: -2 * 3600 - 1800, now: sampleTime)
        let (_, screen, _) = renderOnScreen(sampleModel(), editor: LineEditor(), size: size, options: options)
        #expect(text(of: screen.frame, row: 19, columns: 0..<63) == "10:04 <bob> hello alice")
        #expect(MessageFormatter.clock(-60_000, utcOffsetSeconds: 0) == "23:59")
    }

    /// A nick gets the same palette colour everywhere, whatever its case.
    @Test func nickColourIsStable() {
        let (frame, _, _) = renderOnScreen(sampleModel(), editor: LineEditor(), size: size)
        let color = NickPalette.color(for: "bob")
        #expect(frame[19, 7].character == "b")
        #expect(frame[19, 7].style.foreground == color)
        #expect(NickPalette.color(for: "BOB") == color)
        #expect(NickPalette.colors.contains(NickPalette.color(for: "someone-else")))
    }

    /// With colours off (NO_COLOR) the output has no colour SGR; bold and reverse remain.
    @Test func noColorEmitsNoColour() {
        let options = RenderOptions(colors: false, now: sampleTime)
        let (frame, screen, bytes) = renderOnScreen(sampleModel(), editor: LineEditor(), size: size, options: options)
        #expect(frame.cells.allSatisfy { $0.style.foreground == nil })
        #expect(screen.colourSettings == 0)
        let parameters = escapeSequences(in: bytes).filter { $0.hasSuffix("m") }.flatMap { $0.dropFirst().dropLast().split(separator: ";") }
        #expect(!parameters.contains { Int($0).map { (30...49).contains($0) || (90...107).contains($0) } ?? false })
        #expect(parameters.contains("7"))
        let colourful = renderOnScreen(sampleModel(), editor: LineEditor(), size: size).screen
        #expect(colourful.colourSettings > 0)
    }

    /// Our own pending line is dimmed, a failed one says so, errors and private messages are marked.
    @Test func lineKindsAreDistinct() {
        var model = sampleModel()
        model.append(ChatLine(timestamp: sampleTime, nick: "alice", text: "sending", kind: .ownPending, id: "p"), to: "lobby")
        model.append(ChatLine(timestamp: sampleTime, nick: "alice", text: "lost", kind: .ownFailed, id: "f"), to: "lobby")
        model.append(ChatLine(timestamp: sampleTime, nick: "", text: "nick-in-use", kind: .error), to: "lobby")
        model.append(ChatLine(timestamp: sampleTime, nick: "bob", text: "secret", kind: .directMessage), to: "lobby")
        let (frame, screen, _) = renderOnScreen(model, editor: LineEditor(), size: size)
        #expect(text(of: screen.frame, row: 18, columns: 0..<63) == "12:34 <alice> sending")
        #expect(frame[18, 14].style.foreground == 8)
        #expect(text(of: screen.frame, row: 19, columns: 0..<63) == "12:34 <alice> lost [not sent]")
        #expect(text(of: screen.frame, row: 20, columns: 0..<63) == "12:34 !! nick-in-use")
        #expect(text(of: screen.frame, row: 21, columns: 0..<63) == "12:34 *bob* secret")
    }

    /// A line feed in a message starts a new indented row.
    @Test func lineFeedStartsARow() {
        var model = sampleModel()
        model.append(ChatLine(timestamp: sampleTime, nick: "bob", text: "one\ntwo", kind: .message), to: "lobby")
        let (_, screen, _) = renderOnScreen(model, editor: LineEditor(), size: size)
        #expect(text(of: screen.frame, row: 20, columns: 0..<63) == "12:34 <bob> one")
        #expect(text(of: screen.frame, row: 21, columns: 0..<63) == "      two")
    }

    /// Wide text wraps at cell boundaries, never splitting a glyph, and loses nothing.
    @Test func wideTextWrapsWhole() {
        var model = ChatViewModel(serverName: "s", nick: "me")
        let message = String(repeating: "中文字", count: 20) + "👨‍👩‍👧🇫🇷"
        model.append(ChatLine(timestamp: sampleTime, nick: "li", text: message, kind: .message), to: "lobby")
        let size = TerminalSize(columns: 31, rows: 12)
        let (frame, screen, _) = renderOnScreen(model, editor: LineEditor(), size: size)
        #expect(screen.violations.isEmpty)
        let rows = (1..<10).map { text(of: frame, row: $0, columns: 0..<31) }.filter { !$0.isEmpty }
        #expect(rows.allSatisfy { DisplayWidth.columns(of: $0) <= 31 })
        let body = rows.enumerated().map { $0.offset == 0 ? String($0.element.dropFirst(11)) : String($0.element.dropFirst(6)) }
        #expect(body.joined() == message)
        #expect(rows[0].hasPrefix("12:34 <li> 中文字"))
        #expect(frame[1, 30].character == " ")
    }

    /// The member list sorts nicks, marks away users, and summarises what does not fit.
    @Test func memberListOverflows() {
        var model = sampleModel()
        model.setMembers((1...30).map { "user\($0)" }, in: "lobby")
        let (_, screen, _) = renderOnScreen(model, editor: LineEditor(), size: TerminalSize(columns: 80, rows: 10))
        #expect(text(of: screen.frame, row: 1, columns: 64..<80) == " Members (30)")
        #expect(text(of: screen.frame, row: 2, columns: 64..<80) == " user1")
        #expect(text(of: screen.frame, row: 3, columns: 64..<80) == " user10")
        #expect(text(of: screen.frame, row: 7, columns: 64..<80) == " +25 more")
    }

    /// The status bar shows every connection state, and unread counts of other rooms.
    @Test(arguments: [(ConnectionState.connecting, "connecting"), (.reconnecting(attempt: 3), "reconnecting (attempt 3)"),
                      (.disconnected(reason: "SHUTDOWN"), "disconnected: SHUTDOWN"), (.disconnected(reason: ""), "disconnected")])
    func statusBarShowsConnection(state: ConnectionState, expected: String) {
        var model = sampleModel()
        model.connection = state
        model.roundTripMilliseconds = nil
        let (_, screen, _) = renderOnScreen(model, editor: LineEditor(), size: TerminalSize(columns: 100, rows: 5))
        #expect(screen.textLines[0].hasSuffix(" " + expected))
        #expect(screen.textLines[0].contains("2:dev(3)"))
    }

    /// PgUp shows older lines and says on the typing line how many are below; PgDn returns to the newest.
    @Test func pagingThroughHistory() {
        var model = ChatViewModel(serverName: "s", nick: "me")
        for index in 0..<30 {
            model.append(ChatLine(timestamp: sampleTime, nick: "n", text: "line \(index)", kind: .message), to: "lobby")
        }
        let renderer = Renderer(options: RenderOptions(now: sampleTime))
        let size = TerminalSize(columns: 40, rows: 10)
        #expect(renderer.pageUp(&model, size: size) == .scrolled)
        var screen = renderOnScreen(model, editor: LineEditor(), size: size).screen
        #expect(screen.textLines[7] == "12:34 <n> line 23")
        #expect(screen.textLines[8] == "                      -- 6 more below --")
        #expect(renderer.pageUp(&model, size: size) == .scrolled)
        #expect(renderer.pageUp(&model, size: size) == .scrolled)
        #expect(renderer.pageUp(&model, size: size) == .reachedOldest)
        #expect(renderer.pageUp(&model, size: size) == .reachedOldest)
        screen = renderOnScreen(model, editor: LineEditor(), size: size).screen
        #expect(screen.textLines[1] == "12:34 <n> line 0")
        for _ in 0..<5 { renderer.pageDown(&model, size: size) }
        #expect(model.currentRoom?.isScrolledBack == false)
        screen = renderOnScreen(model, editor: LineEditor(), size: size).screen
        #expect(screen.textLines[7] == "12:34 <n> line 29")
    }

    /// A long input line scrolls with the cursor kept inside the terminal.
    @Test func longInputScrolls() {
        let model = sampleModel()
        let renderer = Renderer(options: RenderOptions(now: sampleTime))
        let size = TerminalSize(columns: 30, rows: 5)
        var editor = LineEditor()
        for character in "the quick brown fox jumps over the lazy dog" {
            editor.insert(String(character))
            editor.scrollToCursor(width: renderer.inputWidth(for: model, size: size))
        }
        #expect(renderer.inputWidth(for: model, size: size) == 22)
        let (_, screen, _) = renderOnScreen(model, editor: editor, size: size)
        #expect(screen.textLines[4] == "[lobby] mps over the lazy dog")
        #expect(screen.visibleCursor == CursorPosition(row: 4, column: 29))
    }

    /// Without rooms the status bar says so and the prompt falls back to `> `.
    @Test func noRooms() {
        let model = ChatViewModel(serverName: "s", nick: "me")
        let (_, screen, _) = renderOnScreen(model, editor: makeEditor("/join x"), size: TerminalSize(columns: 60, rows: 6))
        #expect(screen.textLines[0].hasPrefix(" s | me | (no room)"))
        #expect(screen.textLines[5] == "> /join x")
    }
}
