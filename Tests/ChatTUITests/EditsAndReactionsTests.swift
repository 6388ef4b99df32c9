import Testing

@testable import ChatTUI

/// What version 1.2's events do to the lines shown (PROTOCOL.md section 15): edits, redactions,
/// reactions and replies, found by seq, and how the formatter shows them.
struct EditsAndReactionsTests {
    /// A lobby where bob's message is seq 10 and alice's own, once acknowledged, seq 11.
    private func model() -> ChatViewModel {
        var model = ChatViewModel(serverName: "qchat.example", nick: "alice")
        model.openRoom("lobby")
        model.append(ChatLine(timestamp: sampleTime, nick: "bob", text: "deploy on friday?", kind: .message, seq: 10), to: "lobby")
        model.append(ChatLine(timestamp: sampleTime, nick: "carol", text: "joined", kind: .event, seq: 12), to: "lobby")
        model.append(ChatLine(timestamp: sampleTime, nick: "alice", text: "sure", kind: .ownPending, id: "m1"), to: "lobby")
        model.updateOwnMessage(id: "m1", kind: .ownConfirmed, timestamp: sampleTime + 1, seq: 11)
        return model
    }

    private func line(_ model: ChatViewModel, seq: Int64) -> ChatLine? {
        model.room(named: "lobby")?.lines.last { $0.seq == seq && $0.kind != .event }
    }

    private func shown(_ line: ChatLine) -> String {
        let formatter = MessageFormatter(colors: false, utcOffsetSeconds: 0, timestamp: TimestampFormat(""))
        return String(formatter.glyphs(for: line).glyphs.map(\.character))
    }

    @Test func anAckGivesOurLineItsSeqForEditsByDefault() {
        #expect(model().lastOwnSeq(in: "lobby") == 11)
        #expect(model().lastOwnSeq(in: "dev") == nil)
    }

    @Test func anEditReplacesTheTextAndSaysSo() throws {
        var model = model()
        let editedShown = model.applyEdit(seq: 11, text: "sure, after lunch", in: "lobby")
        #expect(editedShown)
        let edited = try #require(line(model, seq: 11))
        #expect(edited.text == "sure, after lunch" && edited.isEdited)
        #expect(shown(edited) == "<alice> sure, after lunch (edited)")
        // Not shown (older than the lines kept, or in no room open): nothing changes.
        let editedTooOld = model.applyEdit(seq: 3, text: "x", in: "lobby")
        #expect(!editedTooOld)
        let editedInOtherRoom = model.applyEdit(seq: 11, text: "x", in: "dev")
        #expect(!editedInOtherRoom)
        // An event line with the seq is not a message.
        let editedAnEvent = model.applyEdit(seq: 12, text: "x", in: "lobby")
        #expect(!editedAnEvent)
    }

    @Test func reactionsGatherOncePerNickAndGoWhenNobodyGivesThem() throws {
        var model = model()
        model.applyReaction("👍", by: "carol", added: true, seq: 10, in: "lobby")
        model.applyReaction("👍", by: "Carol", added: true, seq: 10, in: "lobby")
        model.applyReaction("👍", by: "alice", added: true, seq: 10, in: "lobby")
        model.applyReaction("🎉", by: "dave", added: true, seq: 10, in: "lobby")
        #expect(shown(try #require(line(model, seq: 10))) == "<bob> deploy on friday?  👍 2  🎉 1")
        model.applyReaction("🎉", by: "dave", added: false, seq: 10, in: "lobby")
        model.applyReaction("👍", by: "nobody", added: false, seq: 10, in: "lobby")
        #expect(try #require(line(model, seq: 10)).reactions == [Reaction(value: "👍", by: ["carol", "alice"])])
    }

    @Test func aRedactionRemovesTheTextAndItsReactionsForGood() throws {
        var model = model()
        model.applyReaction("👍", by: "carol", added: true, seq: 10, in: "lobby")
        let redacted = model.applyRedaction(seq: 10, in: "lobby")
        #expect(redacted)
        let removed = try #require(line(model, seq: 10))
        #expect(removed.text.isEmpty && removed.isRedacted && removed.reactions.isEmpty)
        #expect(shown(removed) == "<bob> (message removed)")
        // Nothing comes back on a removed message.
        let editedAfterRemoval = model.applyEdit(seq: 10, text: "back", in: "lobby")
        #expect(!editedAfterRemoval)
        let reactedAfterRemoval = model.applyReaction("👍", by: "carol", added: true, seq: 10, in: "lobby")
        #expect(!reactedAfterRemoval)
        #expect(model.replyQuote(seq: 10, in: "lobby") == ReplyQuote(nick: "bob", excerpt: "(message removed)"))
    }

    @Test func aReplyQuotesTheStartOfTheMessageItAnswers() throws {
        var model = model()
        model.append(ChatLine(timestamp: sampleTime, nick: "bob", text: String(repeating: "long line ", count: 10) + "\nsecond",
                              kind: .message, seq: 13), to: "lobby")
        let quote = try #require(model.replyQuote(seq: 13, in: "lobby"))
        #expect(quote.nick == "bob" && quote.excerpt.count == ChatViewModel.replyExcerptLength && quote.excerpt.hasSuffix("…"))
        var reply = ChatLine(timestamp: sampleTime, nick: "carol", text: "agreed", kind: .message, seq: 14)
        reply.reply = try #require(model.replyQuote(seq: 10, in: "lobby"))
        #expect(shown(reply) == "<carol> [re bob: deploy on friday?] agreed")
    }

    /// Text from the network in a quote or a reaction is neutralised like any other.
    @Test func quotesAndReactionsAreNeutralised() {
        var line = ChatLine(timestamp: sampleTime, nick: "bob", text: "hi", kind: .message, seq: 1)
        line.reply = ReplyQuote(nick: "eve\u{1B}[2J", excerpt: "x\u{1B}]0;owned\u{7}")
        line.reactions = [Reaction(value: "\u{1B}[31m", by: ["eve"])]
        #expect(!shown(line).contains("\u{1B}"))
    }
}
