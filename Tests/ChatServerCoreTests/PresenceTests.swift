import ChatProtocol
import ChatServerCore
import Testing

@Suite struct PresenceTests {
    /// Presence events wait until the presence stream exists, then go out in order, not as live
    /// traffic (a backlog must not pass for a slow consumer, PROTOCOL.md section 12).
    @Test func presenceIsQueuedUntilStreamOpens() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice", presence: false)
        let join = harness.login(2, nick: "bob")
        #expect(join.presence(to: 1).isEmpty)
        let flushed = harness.openPresence(1)
        let presence = flushed.presence(to: 1)
        #expect(presence.map(\.type) == ["roster", "status"])
        #expect(presence[0].members == ["alice"])
        #expect(presence[1].sender == "bob" && presence[1].text == "online")
        #expect(flushed.deliveries.allSatisfy { !$0.live })
        #expect(harness.openPresence(1).actions.isEmpty, "flushed once")
    }

    /// The first bytes on the presence stream open it too, so the glue need not call presenceStreamOpened.
    @Test func receivingOnPresenceStreamOpensIt() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice", presence: false)
        let out = harness.send(.status("online"), from: 1, on: .presence)
        #expect(out.presence(to: 1).map(\.type) == ["roster"])
    }

    /// The queue holds at most `presenceQueueLimit` events and drops the oldest beyond that.
    @Test func queueKeepsNewestWithinCount() throws {
        var configuration = ChatServerConfiguration()
        configuration.presenceQueueLimit = 5
        let harness = try Harness(configuration: configuration)
        harness.login(1, nick: "alice", presence: false)
        // alice's queue: her roster, then the online status of each of 8 users.
        for client in 2...9 { harness.login(ClientID(client), nick: "user\(client)") }
        let presence = harness.openPresence(1).presence(to: 1)
        #expect(presence.map(\.sender) == ["user5", "user6", "user7", "user8", "user9"])
        #expect(presence.allSatisfy { $0.type == "status" && $0.text == "online" })
    }

    /// A newer status of a user supersedes the queued one: 1,100 changes leave one, the last.
    @Test func queuedStatusIsSupersededByTheNewest() throws {
        let harness = try Harness.floodFree()
        harness.login(1, nick: "alice", presence: false)
        harness.login(2, nick: "bob")
        for index in 0..<1_100 {
            harness.send(.status(index % 2 == 0 ? "away" : "online"), from: 2, on: .presence)
            harness.advance(1)
        }
        let presence = harness.openPresence(1).presence(to: 1)
        #expect(presence.map(\.type) == ["roster", "status"])
        #expect(presence.last?.sender == "bob" && presence.last?.text == "online")
    }

    /// A status change goes to everyone who shares a room, not back to the sender and not to strangers.
    @Test func statusGoesToRoomMatesOnly() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        harness.login(3, nick: "carol", room: "dev")
        let out = harness.send(.status("away"), from: 1, on: .presence)
        #expect(out.presence(to: 2).map(\.text) == ["away"])
        #expect(out.presence(to: 2).first?.sender == "alice")
        #expect(out.presence(to: 1).isEmpty)
        #expect(!out.recipients.contains(3))
        #expect(harness.state.who().first?.status == "away")
    }

    /// Repeating the current status, like the online every client starts with, sends nothing.
    @Test func unchangedStatusIsSilent() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        #expect(harness.send(.status("online"), from: 1, on: .presence).effects.isEmpty)
    }

    /// A status word other than online, away, offline is bad-field, sent on the chat stream.
    @Test func invalidStatusIsBadField() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        let out = harness.send(ChatMessage(.status, text: "busy", id: "S1"), from: 1, on: .presence)
        #expect(out.errorCodes(to: 1) == ["bad-field"])
        #expect(out.chat(to: 1).first?.id == "S1")
    }

    /// A status sent before the hello (stream 4 data first) is applied at the hello.
    @Test func statusBeforeHelloIsAppliedAtHello() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.connect(2)
        let early = harness.send(.status("away"), from: 2, on: .presence)
        #expect(early.effects.isEmpty)
        let hello = harness.send(.join(nick: "bob", peer: Harness.peer(2), room: "lobby"), from: 2)
        #expect(hello.presence(to: 1).map(\.text) == ["away"])
        #expect(hello.presence(to: 2).map(\.type) == ["roster"])
        #expect(harness.state.who().last?.status == "away")
    }

    /// Before the hello, a presence-stream error has no chat stream to go to and is dropped.
    @Test func presenceErrorsBeforeHelloWithoutChatStreamAreDropped() throws {
        let harness = try Harness()
        harness.connect(1)
        #expect(harness.send(.status("busy"), from: 1, on: .presence).effects.isEmpty)
        harness.raw("{oops}\n", from: 1)
        #expect(harness.send(.status("busy"), from: 1, on: .presence).errorCodes(to: 1) == ["bad-field"])
    }

    /// Chat-stream types on the presence stream and presence types on the chat stream are unknown-type.
    @Test func messagesOnTheWrongStreamAreUnknownType() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        let misplacedMsg = harness.send(.msg(room: "lobby", text: "hi", id: "W1"), from: 1, on: .presence)
        #expect(misplacedMsg.errorCodes(to: 1) == ["unknown-type"])
        #expect(misplacedMsg.chat(to: 1).first?.id == "W1")
        #expect(misplacedMsg.chat(to: 2).isEmpty)
        #expect(harness.send(.status("away"), from: 1, on: .chat).errorCodes(to: 1) == ["unknown-type"])
        #expect(harness.send(.typing(room: "lobby", isTyping: true), from: 1, on: .chat).errorCodes(to: 1) == ["unknown-type"])
    }

    /// A client may set itself offline while connected; its mates see it.
    @Test func offlineStatusWhileConnected() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        #expect(harness.send(.status("offline"), from: 1, on: .presence).presence(to: 2).map(\.text) == ["offline"])
    }
}
