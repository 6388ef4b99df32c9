import Testing

@testable import ChatTUI

struct ScrollbackTests {
    /// A room with `count` one-row lines named 0, 1, 2, ...
    func model(lines count: Int) -> ChatViewModel {
        var model = ChatViewModel()
        for index in 0..<count {
            model.append(ChatLine(timestamp: 0, nick: "n", text: "\(index)", kind: .message), to: "lobby")
        }
        return model
    }

    let oneRow: (ChatLine) -> Int = { _ in 1 }

    /// Scrolling up moves the anchor by rows and stops with `.reachedOldest` at the top.
    @Test func scrollUpStopsAtTheOldestLine() {
        var model = model(lines: 20)
        #expect(model.scrollUp(rows: 5, paneRows: 8, rowCount: oneRow) == .scrolled)
        #expect(model.currentRoom?.scrollAnchor == ScrollAnchor(lineIndex: 14, hiddenRows: 0))
        #expect(model.scrollUp(rows: 10, paneRows: 8, rowCount: oneRow) == .reachedOldest)
        #expect(model.currentRoom?.scrollAnchor == ScrollAnchor(lineIndex: 7, hiddenRows: 0))
        #expect(model.scrollUp(rows: 1, paneRows: 8, rowCount: oneRow) == .reachedOldest)
    }

    /// When every line fits in the pane, scrolling up asks for history at once.
    @Test func shortRoomAsksForHistory() {
        var model = model(lines: 3)
        #expect(model.scrollUp(rows: 5, paneRows: 8, rowCount: oneRow) == .reachedOldest)
        #expect(model.currentRoom?.scrollAnchor == nil)
        var empty = ChatViewModel()
        #expect(empty.scrollUp(rows: 1, paneRows: 8, rowCount: oneRow) == .reachedOldest)
    }

    /// Scrolling down past the newest line follows new lines again.
    @Test func scrollDownResumesFollowing() {
        var model = model(lines: 20)
        _ = model.scrollUp(rows: 6, paneRows: 8, rowCount: oneRow)
        model.scrollDown(rows: 2, rowCount: oneRow)
        #expect(model.currentRoom?.scrollAnchor == ScrollAnchor(lineIndex: 15, hiddenRows: 0))
        model.scrollDown(rows: 100, rowCount: oneRow)
        #expect(model.currentRoom?.scrollAnchor == nil)
    }

    /// New lines arriving while scrolled back do not move the view.
    @Test func viewStaysWhileLinesArrive() {
        var model = model(lines: 20)
        _ = model.scrollUp(rows: 6, paneRows: 8, rowCount: oneRow)
        model.append(ChatLine(timestamp: 0, nick: "n", text: "new", kind: .message), to: "lobby")
        #expect(model.currentRoom?.scrollAnchor == ScrollAnchor(lineIndex: 13, hiddenRows: 0))
        #expect(model.currentRoom?.isScrolledBack == true)
    }

    /// Older history inserted above keeps the view on the same lines.
    @Test func prependedHistoryKeepsTheView() {
        var model = model(lines: 20)
        _ = model.scrollUp(rows: 12, paneRows: 8, rowCount: oneRow)
        let anchor = model.currentRoom?.scrollAnchor
        let older = (0..<5).map { ChatLine(timestamp: 0, nick: "o", text: "old \($0)", kind: .history) }
        model.prependHistory(older, to: "lobby")
        // Five lines and the rule of their day above them.
        #expect(model.currentRoom?.scrollAnchor?.lineIndex == anchor.map { $0.lineIndex + 6 })
        #expect(model.currentRoom?.lines.prefix(2).map(\.text) == ["1970-01-01", "old 0"])
        #expect(model.scrollUp(rows: 5, paneRows: 8, rowCount: oneRow) == .scrolled)
    }

    /// A line taller than the pane is read in parts: the anchor moves inside it.
    @Test func tallLineScrollsByRows() {
        var model = model(lines: 3)
        let rows: (ChatLine) -> Int = { $0.text == "1" ? 10 : 1 }
        #expect(model.scrollUp(rows: 3, paneRows: 4, rowCount: rows) == .scrolled)
        #expect(model.currentRoom?.scrollAnchor == ScrollAnchor(lineIndex: 1, hiddenRows: 2))
        #expect(model.scrollUp(rows: 3, paneRows: 4, rowCount: rows) == .scrolled)
        #expect(model.currentRoom?.scrollAnchor == ScrollAnchor(lineIndex: 1, hiddenRows: 5))
        #expect(model.scrollUp(rows: 3, paneRows: 4, rowCount: rows) == .reachedOldest)
        #expect(model.currentRoom?.scrollAnchor == ScrollAnchor(lineIndex: 1, hiddenRows: 7))
    }

    /// Trimming old lines while scrolled back keeps the anchor on the same line.
    @Test func trimmingKeepsTheAnchor() {
        var model = model(lines: 10)
        model.maximumLinesPerRoom = 10
        _ = model.scrollUp(rows: 3, paneRows: 4, rowCount: oneRow)
        #expect(model.currentRoom?.scrollAnchor?.lineIndex == 6)
        model.append(ChatLine(timestamp: 0, nick: "n", text: "10", kind: .message), to: "lobby")
        #expect(model.currentRoom?.scrollAnchor?.lineIndex == 5)
        #expect(model.currentRoom?.lines[5].text == "6")
    }
}
