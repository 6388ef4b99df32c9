import ChatProtocol
import ChatServerCore
import Testing

@Suite struct ReplacementTests {
    /// The same peer on a newer connection closes the old one with REPLACED, emits no left, and keeps the nick.
    @Test func samePeerReplacesOldConnectionWithoutLeft() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        harness.connect(3)
        let out = harness.send(.join(nick: "alice_phone", peer: Harness.peer(1), room: "lobby"), from: 3)
        #expect(out.closes.map(\.client) == [1])
        #expect(out.closes.map(\.code) == [.replaced])
        #expect(out.chat(to: 3).first?.type == "welcome")
        #expect(out.chat(to: 3).first?.sender == "alice")
        #expect(!out.chat(to: 2).contains { $0.type == "left" })
        #expect(out.presence(to: 2).isEmpty, "bob already shares lobby with alice: no status")
        #expect(harness.state.nick(of: 3) == "alice")
        #expect(harness.state.nick(of: 1) == nil)
        #expect(harness.state.who().map(\.nick) == ["alice", "bob"])
    }

    /// The replacing connection keeps every room of the old one, not only the one it names.
    @Test func replacementKeepsAllRooms() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.send(.join(room: "dev"), from: 1)
        harness.login(2, nick: "bob", room: "dev")
        harness.connect(3)
        harness.send(.join(nick: "alice", peer: Harness.peer(1), room: "lobby"), from: 3)
        #expect(harness.state.who().first { $0.nick == "alice" }?.rooms == ["dev", "lobby"])
        let out = harness.say("still here", from: 3, in: "dev")
        #expect(out.chat(to: 3).map(\.type) == ["ack"])
        #expect(out.chat(to: 2).map(\.sender) == ["alice"])
        #expect(!out.recipients.contains(1))
    }

    /// A replacing connection's hello for a room it inherited is a re-join: the replay it asked
    /// for and its own joined with the room's latest seq, to it alone; nothing stored, bob told nothing.
    @Test func helloForInheritedRoomResynchronisesAlone() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        harness.say("one", from: 2)
        harness.connect(3)
        let out = harness.send(.join(nick: "alice", peer: Harness.peer(1), room: "lobby", since: 1), from: 3)
        let chat = out.chat(to: 3)
        #expect(chat.map(\.type) == ["welcome", "joined", "msg", "joined"])
        #expect(chat[1].replay == true && chat[2].replay == true)
        #expect(chat[3].replay == nil && chat[3].sender == "alice")
        #expect(chat[3].seq == 3)
        #expect(out.chat(to: 2).isEmpty)
        #expect(out.presence(to: 3).isEmpty, "the new connection has no presence stream yet")
        #expect(harness.say("two", from: 2).chat(to: 3).first?.seq == 4, "no seq was used by the re-join")
    }

    /// After a replacement, the glue's disconnect of the old connection changes nothing.
    @Test func disconnectOfReplacedConnectionIsIgnored() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        harness.connect(3)
        harness.send(.join(nick: "alice", peer: Harness.peer(1), room: "lobby"), from: 3)
        #expect(harness.disconnect(1, reason: "closed").actions.isEmpty)
        #expect(harness.state.who().map(\.nick) == ["alice", "bob"])
        #expect(harness.say("hi", from: 2).chat(to: 3).map(\.text) == ["hi"])
    }

    /// A peer id differing only in case is the same peer; each `welcome` echoes the id as that
    /// connection sent it (issue 11 item 9).
    @Test func peerComparisonIgnoresCase() throws {
        let harness = try Harness()
        let peer = "6f1c2b3a-0000-4000-8000-00000000abcd"
        let hello = harness.login(1, nick: "alice", peer: peer)
        #expect(hello.chat(to: 1).first?.peer == peer)
        harness.connect(2)
        let out = harness.send(.join(nick: "alice", peer: peer.uppercased(), room: "lobby"), from: 2)
        #expect(out.closes.map(\.code) == [.replaced])
        #expect(out.chat(to: 2).first?.peer == peer.uppercased())
    }

    /// The status of the replaced connection carries over; a different early status is announced.
    @Test func replacementKeepsStatusAndAnnouncesEarlyChange() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        harness.send(.status("away"), from: 1, on: .presence)
        harness.connect(3)
        harness.send(.status("online"), from: 3, on: .presence)
        let out = harness.send(.join(nick: "alice", peer: Harness.peer(1), room: "lobby"), from: 3)
        #expect(out.presence(to: 2).map(\.text) == ["online"])
        #expect(harness.state.who().first?.status == "online")
    }
}
