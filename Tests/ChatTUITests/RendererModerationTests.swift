import Testing

@testable import ChatTUI

/// What accounts and moderation add to the screen: the topic above the room's messages, the
/// marks of operators and logged-in users in the member list, a password prompt that echoes nothing.
struct RendererModerationTests {
    /// A room with a topic shows it on the pane's first row, messages below; the member list keeps its full height.
    @Test func topicAboveTheMessages() {
        var model = sampleModel()
        model.setRoomInfo(topic: "release \u{1B}[2Jfriday", modes: [], operators: [], identified: [], in: "lobby")
        let (_, screen, _) = renderOnScreen(model, editor: LineEditor(), size: TerminalSize(columns: 80, rows: 24))
        #expect(text(of: screen.frame, row: 1, columns: 0..<63) == "Topic: release ^[[2Jfriday")
        #expect(text(of: screen.frame, row: 21, columns: 0..<63) == "12:36 -- carol joined")
        #expect(text(of: screen.frame, row: 1, columns: 64..<80) == " Members (3)")
        #expect(screen.violations.isEmpty)
        // Another room without a topic has no topic row.
        model.selectRoom(named: "dev")
        let (_, other, _) = renderOnScreen(model, editor: LineEditor(), size: TerminalSize(columns: 80, rows: 24))
        #expect(!text(of: other.frame, row: 1, columns: 0..<63).hasPrefix("Topic:"))
    }

    /// `@` marks operators, `+` logged-in users, `~` follows for the away (issue 24, defect 11: an
    /// away operator showed `@` alone, never `~`); plain guests get a blank.
    @Test func memberMarks() {
        var model = sampleModel()
        model.setMembers(["alice", "bob", "carol", "dave", "erin"], in: "lobby")
        model.setStatus(.away, of: "erin")
        model.setRoomInfo(topic: nil, modes: [], operators: ["Alice", "erin"], identified: ["alice", "bob"], in: "lobby")
        let (_, screen, _) = renderOnScreen(model, editor: LineEditor(), size: TerminalSize(columns: 80, rows: 24))
        let rows = (2...6).map { text(of: screen.frame, row: $0, columns: 64..<80) }
        // Operators first, then those logged in (issue 24).
        #expect(rows == ["@alice", "@~erin", "+bob", "~carol", " dave"])
    }

    /// While a password is asked for, the input line shows the prompt and nothing typed, the cursor right after the prompt.
    @Test func secretPromptEchoesNothing() {
        var model = sampleModel()
        model.secretPrompt = "password of alice: "
        let (_, screen, _) = renderOnScreen(model, editor: makeEditor("hunter22"), size: TerminalSize(columns: 80, rows: 24))
        #expect(screen.textLines[23] == "password of alice:")
        #expect(!screen.textLines.joined().contains("hunter22"))
        #expect(screen.visibleCursor == CursorPosition(row: 23, column: 19))
    }
}
