import ChatProtocol
import ChatServerCore
import Testing

@Suite struct DirectMessageTests {
    /// A dm is delivered to the recipient with sender, to, text, id, ts, and acknowledged with id and ts only.
    @Test func dmIsDeliveredAndAcknowledged() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob", room: "elsewhere")
        harness.login(3, nick: "carol")
        let out = harness.send(.dm(to: "bob", text: "psst", id: "D1"), from: 1)
        let delivered = out.chat(to: 2)
        #expect(delivered.count == 1)
        #expect(delivered[0].type == "dm" && delivered[0].sender == "alice" && delivered[0].to == "bob")
        #expect(delivered[0].text == "psst" && delivered[0].id == "D1" && delivered[0].ts == harness.now)
        #expect(delivered[0].seq == nil && delivered[0].room == nil)
        let ack = out.chat(to: 1)
        #expect(ack.map(\.type) == ["ack"])
        #expect(ack[0].id == "D1" && ack[0].ts == harness.now && ack[0].seq == nil && ack[0].room == nil)
        #expect(out.chat(to: 3).isEmpty)
    }

    /// The recipient nick is matched case-insensitively; `to` shows the nick as chosen.
    @Test func recipientIsMatchedCaseInsensitively() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "Bob")
        let out = harness.send(.dm(to: "BOB", text: "hey", id: "D2"), from: 1)
        #expect(out.chat(to: 2).first?.to == "Bob")
    }

    /// A dm to a nick nobody holds is no-such-user, carrying the id.
    @Test func dmToUnknownNickIsNoSuchUser() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        let out = harness.send(.dm(to: "ghost", text: "boo", id: "D3"), from: 1)
        #expect(out.errorCodes(to: 1) == ["no-such-user"])
        #expect(out.chat(to: 1).first?.id == "D3")
    }

    /// A dm without `to` is bad-field; with bad text, too-large or bad-field.
    @Test func dmFieldErrors() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        #expect(harness.send(ChatMessage(.dm, text: "x", id: "D4"), from: 1).errorCodes(to: 1) == ["bad-field"])
        #expect(harness.send(.dm(to: "bob", text: "", id: "D5"), from: 1).errorCodes(to: 1) == ["bad-field"])
        let big = String(repeating: "x", count: 4_097)
        #expect(harness.send(.dm(to: "bob", text: big, id: "D6"), from: 1).errorCodes(to: 1) == ["too-large"])
    }

    /// A dm is not a room event: it is neither stored nor given a seq.
    @Test func dmIsNotStored() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        harness.send(.dm(to: "bob", text: "secret", id: "D7"), from: 1)
        let history = harness.send(.history(room: "lobby"), from: 2).chat(to: 2)
        #expect(!history.contains { $0.text == "secret" })
        #expect(harness.say("public", from: 1).chat(to: 1).first?.seq == 3)
    }

    /// A resent dm id is acknowledged again with the original ts and not delivered twice.
    @Test func resentDmIsNotDeliveredTwice() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        let first = harness.send(.dm(to: "bob", text: "once", id: "D8"), from: 1)
        harness.advance(999)
        let again = harness.send(.dm(to: "bob", text: "once", id: "D8"), from: 1)
        #expect(again.chat(to: 1) == first.chat(to: 1))
        #expect(again.chat(to: 2).isEmpty)
    }

    /// Control characters are removed from dm text too.
    @Test func dmTextIsSanitised() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        let out = harness.send(.dm(to: "bob", text: "\u{1B}]0;pwned\u{7}hi", id: "D9"), from: 1)
        #expect(out.chat(to: 2).first?.text == "]0;pwnedhi")
    }
}
