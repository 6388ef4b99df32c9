import Testing

@testable import ChatTUI

/// Version 1.2 in the view (issue 28, chat-client items 1-4): message numbers, the counts a
/// `welcome` gives, another device's read clearing them, what a search found and the message it
/// shows in its place.
struct AlwaysOnViewTests {
    /// lobby (shown) and dev, where bob wrote 20 (mentioning alice), 21, and alice 22.
    private func model() -> ChatViewModel {
        var model = ChatViewModel(serverName: "qchat.example", nick: "alice")
        model.openRoom("lobby")
        model.openRoom("dev")
        model.append(ChatLine(timestamp: sampleTime, nick: "bob", text: "alice: look", kind: .message, isHighlight: true, seq: 20), to: "dev")
        model.append(ChatLine(timestamp: sampleTime, nick: "bob", text: "at this", kind: .message, seq: 21), to: "dev")
        model.append(ChatLine(timestamp: sampleTime, nick: "alice", text: "seen", kind: .ownConfirmed, seq: 22), to: "dev")
        return model
    }

    /// `/numbers`: each message shows its number before its nick; events, notes and lines
    /// without one do not.
    @Test func messageNumbersAreShownOnDemand() {
        let line = ChatLine(timestamp: sampleTime, nick: "bob", text: "hi", kind: .message, seq: 42)
        func shown(_ line: ChatLine, numbers: Bool) -> String {
            let formatter = MessageFormatter(colors: false, utcOffsetSeconds: 0, timestamp: TimestampFormat(""), numbers: numbers)
            return String(formatter.glyphs(for: line).glyphs.map(\.character))
        }
        #expect(shown(line, numbers: false) == "<bob> hi")
        #expect(shown(line, numbers: true) == "[42] <bob> hi")
        var action = line
        action.isAction = true
        #expect(shown(action, numbers: true) == "[42] * bob hi")
        #expect(shown(ChatLine(timestamp: sampleTime, nick: "bob", text: "pending", kind: .ownPending), numbers: true) == "<bob> pending")
        #expect(shown(ChatLine(timestamp: sampleTime, nick: "bob", text: "joined", kind: .event, seq: 43), numbers: true) == "-- bob joined")
        // The renderer's formatter follows the option.
        var renderer = Renderer(options: RenderOptions(colors: false))
        #expect(!renderer.formatter.numbers)
        renderer.options.messageNumbers = true
        #expect(renderer.formatter.numbers)
    }

    /// `welcome`'s counts go on the bar's labels; the buffer shown gets none.
    @Test func welcomeCountsShowOnTheBar() {
        var model = ChatViewModel(serverName: "qchat.example", nick: "alice")
        model.openRoom("lobby")
        model.setCounts(unread: 9, mentions: 2, in: "ops")
        model.setCounts(unread: 3, mentions: 3, in: "@bob")
        model.setCounts(unread: 4, mentions: 1, in: "lobby")
        #expect(model.bufferList() == "buffers: [1:lobby] 2:ops(9,2!) 3:@bob(3,3!)")
    }

    /// Another device read dev up to 20: bob's 20 (the mention) is no longer unread here, 21 is;
    /// up to 22: nothing is.
    @Test func anotherDevicesReadClearsWhatItRead() {
        var model = model()
        #expect(model.room(named: "dev")?.unreadCount == 2 && model.room(named: "dev")?.highlightCount == 1)
        model.markRead(upTo: 20, in: "dev")
        #expect(model.room(named: "dev")?.unreadCount == 1 && model.room(named: "dev")?.highlightCount == 0)
        model.markRead(upTo: 22, in: "dev")
        #expect(model.room(named: "dev")?.unreadCount == 0)
        model.markRead(upTo: 22, in: "nowhere")
        #expect(model.newestSeq(in: "dev") == 22)
        #expect(model.newestSeq(in: "lobby") == nil)
        #expect(model.hasMessage(seq: 21, in: "dev") && !model.hasMessage(seq: 23, in: "dev"))
    }

    /// What a search found: a view, oldest first, under a header; the message shown in its place
    /// is emphasised and the pane ends at it.
    @Test func foundMessagesAndOneShownInItsPlace() throws {
        var model = model()
        let found = [ChatLine(timestamp: sampleTime + 2, nick: "bob", text: "at this", kind: .history, seq: 21),
                     ChatLine(timestamp: sampleTime + 1, nick: "bob", text: "alice: look", kind: .history, seq: 20)]
        model.showFound(found, in: "#dev", words: "look at")
        let view = try #require(model.currentRoom)
        #expect(view.name == ChatViewModel.foundView && view.isView)
        #expect(view.lines.first?.text.hasPrefix("2 found in #dev for 'look at': Enter shows the newest in its place") == true)
        #expect(view.lines.compactMap(\.seq) == [20, 21])
        let shownInPlace = model.showMessage(seq: 20, in: "dev", term: "look at")
        #expect(shownInPlace)
        #expect(model.currentRoom?.name == "dev")
        let dev = try #require(model.currentRoom)
        #expect(dev.searchMatch?.lineIndex == dev.lines.firstIndex { $0.seq == 20 })
        #expect(dev.scrollAnchor?.lineIndex == dev.searchMatch?.lineIndex)
        let notHeld = model.showMessage(seq: 5, in: "dev", term: "x")
        #expect(!notHeld)
        model.showFound([], in: "#dev", words: "nothing")
        #expect(model.currentRoom?.lines.first?.text == "0 found in #dev for 'nothing' (/close closes this view)")
    }
}
