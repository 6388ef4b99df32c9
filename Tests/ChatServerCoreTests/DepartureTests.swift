import ChatProtocol
import ChatServerCore
import Testing

@Suite struct DepartureTests {
    /// A disconnect stores left with the reason in every room, tells the mates offline, and frees the nick.
    @Test func disconnectSendsLeftAndOffline() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.send(.join(room: "dev"), from: 1)
        harness.login(2, nick: "bob")
        harness.send(.join(room: "dev"), from: 2)
        let out = harness.disconnect(1, reason: "timeout")
        let left = out.chat(to: 2)
        #expect(left.map(\.room) == ["lobby", "dev"])
        #expect(left.allSatisfy { $0.type == "left" && $0.sender == "alice" && $0.text == "timeout" && $0.seq != nil })
        #expect(out.presence(to: 2).map(\.text) == ["offline"])
        #expect(!out.recipients.contains(1))
        #expect(harness.state.who().map(\.nick) == ["bob"])
        #expect(harness.login(3, nick: "alice").chat(to: 3).first?.sender == "alice")
        #expect(harness.send(.history(room: "dev"), from: 2).chat(to: 2).contains { $0.type == "left" && $0.text == "timeout" })
    }

    /// An empty disconnect reason becomes closed, so left always has a non-empty text.
    @Test func emptyReasonBecomesClosed() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        #expect(harness.disconnect(1, reason: "").chat(to: 2).first?.text == "closed")
    }

    /// A disconnect before the hello sends nothing and forgets the connection.
    @Test func disconnectBeforeHelloSendsNothing() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.connect(2)
        #expect(harness.disconnect(2).effects.isEmpty)
        #expect(harness.state.connectedClientCount == 1)
    }

    /// kick closes the user with KICKED and its mates see left with text kicked.
    @Test func kickClosesWithKicked() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        let out = Outbox(harness.settle(harness.state.kick(nick: "ALICE", reason: "spamming", now: harness.now)))
        #expect(OperatorNameTests.console(out.actions) == ["kicked alice"])
        #expect(out.closes.map(\.client) == [1])
        #expect(out.closes.map(\.code) == [.kicked])
        #expect(out.closes.first?.reason == "spamming")
        #expect(out.chat(to: 2).map(\.text) == ["kicked"])
        #expect(harness.state.nick(of: 1) == nil)
    }

    /// kick of a nick nobody holds logs a warning and tells the console; nobody else hears of it.
    @Test func kickOfUnknownNickOnlyLogsAndAnswers() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        let out = Outbox(harness.settle(harness.state.kick(nick: "ghost", reason: "", now: harness.now)))
        #expect(OperatorNameTests.console(out.actions) == ["no user 'ghost' is connected"])
        #expect(out.effects.count == 1, "the console's line alone")
        #expect(out.logs.map(\.level) == [.warning])
    }

    /// shutdown closes every client, said hello or not, with SHUTDOWN and stores left events without sending them.
    @Test func shutdownClosesEveryone() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        harness.connect(3)
        let out = Outbox(harness.settle(harness.state.shutdown(now: harness.now)))
        #expect(out.closes.map(\.client) == [1, 2, 3])
        #expect(out.closes.allSatisfy { $0.code == .shutdown })
        #expect(out.deliveries.isEmpty)
        #expect(harness.state.who().isEmpty)
        #expect(harness.state.connectedClientCount == 0)
        let stored = try harness.storedEvents(inRoom: "lobby")
        #expect(stored.map(\.kind) == [.joined, .joined, .left, .left])
        #expect(stored.suffix(2).allSatisfy { $0.text == "shutdown" })
    }
}
