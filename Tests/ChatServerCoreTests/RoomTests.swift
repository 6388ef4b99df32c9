import ChatProtocol
import ChatServerCore
import Testing

@Suite struct RoomTests {
    /// The joined event reaches every member including the joiner, with one seq and ts.
    @Test func joinedReachesEveryMemberIncludingJoiner() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        harness.advance(5)
        let out = harness.login(3, nick: "carol")
        for client: ClientID in [1, 2, 3] {
            let joined = out.chat(to: client).filter { $0.type == "joined" && $0.replay == nil }
            #expect(joined.count == 1)
            #expect(joined.first?.sender == "carol")
            #expect(joined.first?.seq == 3)
            #expect(joined.first?.ts == harness.now)
        }
    }

    /// The roster of the room goes to the joiner's presence stream, sorted case-insensitively.
    @Test func rosterGoesToJoinerPresenceStream() throws {
        let harness = try Harness()
        harness.login(1, nick: "zed")
        harness.login(2, nick: "Bob")
        harness.connect(3)
        harness.openPresence(3)
        let out = harness.send(.join(nick: "alice", peer: Harness.peer(3), room: "lobby"), from: 3)
        let roster = out.presence(to: 3).filter { $0.type == "roster" }
        #expect(roster.count == 1)
        #expect(roster.first?.room == "lobby")
        #expect(roster.first?.members == ["alice", "Bob", "zed"])
        #expect(out.presence(to: 1).allSatisfy { $0.type == "status" })
    }

    /// The joiner's status goes only to members who did not share a room with it before.
    @Test func joinerStatusGoesToNewlySharedMembersOnly() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        harness.send(.join(room: "dev"), from: 1)
        harness.login(3, nick: "carol", room: "dev")
        let out = harness.send(.join(room: "dev"), from: 2)
        #expect(out.presence(to: 3).map(\.type) == ["status"])
        #expect(out.presence(to: 3).first?.sender == "bob")
        #expect(out.presence(to: 3).first?.text == "online")
        #expect(out.presence(to: 1).isEmpty, "alice already shares lobby with bob")
        #expect(out.presence(to: 2).map(\.type) == ["roster"], "carol is online: no status for her")
    }

    /// A joiner learns the status of newly shared members who are not online.
    @Test func joinerLearnsStatusOfAwayMembers() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "carol")
        harness.send(.status("away"), from: 1, on: .presence)
        harness.connect(3)
        harness.openPresence(3)
        let out = harness.send(.join(nick: "bob", peer: Harness.peer(3), room: "lobby"), from: 3)
        let presence = out.presence(to: 3)
        #expect(presence.map(\.type) == ["roster", "status"])
        #expect(presence.last?.sender == "alice")
        #expect(presence.last?.text == "away")
        #expect(out.presence(to: 1).map(\.text) == ["online"])
        #expect(out.presence(to: 1).first?.sender == "bob")
    }

    /// part sends left with text part to every member including the leaver, and stores it.
    @Test func partSendsLeftToMembersAndLeaver() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        let out = harness.send(.part(room: "lobby"), from: 2)
        for client: ClientID in [1, 2] {
            let left = out.chat(to: client)
            #expect(left.map(\.type) == ["left"])
            #expect(left.first?.sender == "bob")
            #expect(left.first?.text == "part")
            #expect(left.first?.seq == 3)
        }
        #expect(harness.state.who().first { $0.nick == "bob" }?.rooms == [])
        let history = harness.send(.history(room: "lobby"), from: 1).chat(to: 1)
        #expect(history.map(\.type) == ["joined", "joined", "left", "history-end"])
    }

    /// part of a room the client is not in is not-joined; of an invalid name, bad-room.
    @Test func partErrors() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        #expect(harness.send(.part(room: "dev"), from: 1).errorCodes(to: 1) == ["not-joined"])
        #expect(harness.send(.part(room: "-bad"), from: 1).errorCodes(to: 1) == ["bad-room"])
    }

    /// join of an invalid room name after the hello is bad-room.
    @Test func joinOfInvalidRoomIsBadRoom() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        let tooLong = String(repeating: "r", count: 33)
        #expect(harness.send(.join(room: tooLong), from: 1).errorCodes(to: 1) == ["bad-room"])
        #expect(harness.send(.join(room: ""), from: 1).errorCodes(to: 1) == ["bad-room"])
        #expect(harness.send(.join(room: "ok_room-1"), from: 1).errorCodes(to: 1) == [])
    }

    /// Each room numbers its events from 1 on its own.
    @Test func seqIsPerRoom() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        let dev = harness.send(.join(room: "dev"), from: 1).chat(to: 1).last
        #expect(dev?.seq == 1)
        #expect(harness.say("x", from: 1).chat(to: 1).first?.seq == 2)
        #expect(harness.say("y", from: 1, in: "dev").chat(to: 1).first?.seq == 2)
    }

    /// Three rooms with overlapping members: messages reach exactly the room's other members,
    /// and a disconnect tells each mate once that the user is offline.
    @Test func threeRoomsWithOverlappingMembers() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice", room: "red")
        harness.send(.join(room: "green"), from: 1)
        harness.login(2, nick: "bob", room: "green")
        harness.send(.join(room: "blue"), from: 2)
        harness.login(3, nick: "carol", room: "blue")
        harness.send(.join(room: "red"), from: 3)

        #expect(harness.say("r", from: 1, in: "red").recipients == [1, 3])
        #expect(harness.say("g", from: 2, in: "green").recipients == [1, 2])
        #expect(harness.say("b", from: 3, in: "blue").recipients == [2, 3])
        #expect(harness.say("nope", from: 1, in: "blue").errorCodes(to: 1) == ["not-joined"])

        let out = harness.disconnect(1, reason: "timeout")
        #expect(out.chat(to: 3).map(\.room) == ["red"])
        #expect(out.chat(to: 2).map(\.room) == ["green"])
        #expect(out.chat(to: 3).first?.text == "timeout")
        for mate: ClientID in [2, 3] {
            #expect(out.presence(to: mate).map(\.text) == ["offline"])
            #expect(out.presence(to: mate).first?.sender == "alice")
        }
    }
}
