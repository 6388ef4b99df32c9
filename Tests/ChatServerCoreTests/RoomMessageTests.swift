import ChatProtocol
import ChatServerCore
import Testing

@Suite struct RoomMessageTests {
    /// A msg is acknowledged to its sender and relayed to every other member, never echoed.
    @Test func msgIsAcknowledgedAndRelayedWithoutEcho() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        harness.login(3, nick: "carol")
        harness.advance(1_234)
        let out = harness.send(.msg(room: "lobby", text: "hi bob", id: "ID-1"), from: 1)
        let ack = out.chat(to: 1)
        #expect(ack.map(\.type) == ["ack"])
        #expect(ack[0].id == "ID-1" && ack[0].room == "lobby" && ack[0].seq == 4 && ack[0].ts == harness.now)
        for client: ClientID in [2, 3] {
            let relayed = out.chat(to: client)
            #expect(relayed.count == 1)
            #expect(relayed[0].type == "msg")
            #expect(relayed[0].room == "lobby" && relayed[0].sender == "alice" && relayed[0].text == "hi bob")
            #expect(relayed[0].id == "ID-1" && relayed[0].seq == 4 && relayed[0].ts == harness.now)
            #expect(relayed[0].replay == nil)
        }
    }

    /// The server stamps sender: what a client puts there is ignored.
    @Test func senderIsStampedByServer() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        var forged = ChatMessage.msg(room: "lobby", text: "trust me", id: "F")
        forged.sender = "bob"
        #expect(harness.send(forged, from: 1).chat(to: 2).first?.sender == "alice")
    }

    /// A msg without room goes to lobby.
    @Test func msgWithoutRoomGoesToLobby() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        let out = harness.send(ChatMessage(type: "msg", text: "hi", id: "X"), from: 1)
        #expect(out.chat(to: 2).first?.room == "lobby")
        #expect(out.chat(to: 1).first?.room == "lobby")
    }

    /// A msg to a room the sender is not in is not-joined, carrying the id; nothing is delivered.
    @Test func msgToRoomNotJoinedIsNotJoined() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob", room: "dev")
        let out = harness.send(.msg(room: "dev", text: "hi", id: "ID-2"), from: 1)
        #expect(out.errorCodes(to: 1) == ["not-joined"])
        #expect(out.chat(to: 1).first?.id == "ID-2")
        #expect(out.chat(to: 2).isEmpty)
    }

    /// A msg to an invalid room name is bad-room, carrying the id.
    @Test func msgToInvalidRoomIsBadRoom() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        let out = harness.send(.msg(room: "Bad Room!", text: "hi", id: "ID-3"), from: 1)
        #expect(out.errorCodes(to: 1) == ["bad-room"])
        #expect(out.chat(to: 1).first?.id == "ID-3")
    }

    /// Text over 4096 bytes is too-large; exactly 4096 bytes is accepted.
    @Test func textLimitIs4096Bytes() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        let tooLarge = harness.send(.msg(room: "lobby", text: String(repeating: "é", count: 2_049), id: "big"), from: 1)
        #expect(tooLarge.errorCodes(to: 1) == ["too-large"])
        #expect(tooLarge.chat(to: 1).first?.id == "big")
        let atLimit = harness.send(.msg(room: "lobby", text: String(repeating: "é", count: 2_048), id: "max"), from: 1)
        #expect(atLimit.chat(to: 1).map(\.type) == ["ack"])
    }

    /// Empty text, or text of control characters only, is bad-field.
    @Test func emptyTextIsBadField() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        #expect(harness.send(.msg(room: "lobby", text: "", id: "e1"), from: 1).errorCodes(to: 1) == ["bad-field"])
        #expect(harness.send(.msg(room: "lobby", text: "\u{1B}\u{7}", id: "e2"), from: 1).errorCodes(to: 1) == ["bad-field"])
    }

    /// Control characters except LF and TAB are removed before relaying and storing.
    @Test func controlCharactersAreRemoved() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        let out = harness.send(.msg(room: "lobby", text: "a\u{1B}[31mred\u{7}\tb\nc\u{9B}2J\u{7F}", id: "C"), from: 1)
        #expect(out.chat(to: 2).first?.text == "a[31mred\tb\nc2J")
        let stored = harness.send(.history(room: "lobby", limit: 1), from: 2).chat(to: 2).first
        #expect(stored?.text == "a[31mred\tb\nc2J")
    }

    /// A msg without id is delivered and acknowledged, but a resend is delivered again.
    @Test func msgWithoutIdIsNotDeduplicated() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        let message = ChatMessage(.msg, text: "again", room: "lobby")
        let first = harness.send(message, from: 1)
        let second = harness.send(message, from: 1)
        #expect(first.chat(to: 1).first?.type == "ack")
        #expect(first.chat(to: 1).first?.id == nil)
        #expect(first.chat(to: 2).first?.seq == 3)
        #expect(second.chat(to: 2).first?.seq == 4)
    }

    /// A resent id is acknowledged again with the same seq and ts and not delivered twice.
    @Test func resentIdIsAcknowledgedAgainAndNotDelivered() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        let first = harness.send(.msg(room: "lobby", text: "once", id: "ONCE"), from: 1)
        harness.advance(500)
        let again = harness.send(.msg(room: "lobby", text: "once", id: "ONCE"), from: 1)
        #expect(again.chat(to: 1) == first.chat(to: 1))
        #expect(again.chat(to: 2).isEmpty)
        #expect(harness.say("next", from: 1).chat(to: 1).first?.seq == 4)
    }

    /// A resend after a reconnect of the same peer, even before it re-joins the room, gets the original ack.
    @Test func resendAfterReconnectIsAcknowledgedWithOriginalSeq() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.send(.join(room: "dev"), from: 1)
        harness.login(2, nick: "bob", room: "dev")
        let original = harness.send(.msg(room: "dev", text: "sent once", id: "R1"), from: 1).chat(to: 1)[0]
        harness.disconnect(1, reason: "timeout")
        harness.advance(10_000)
        harness.login(3, nick: "alice", peer: Harness.peer(1))
        let resend = harness.send(.msg(room: "dev", text: "sent once", id: "R1"), from: 3)
        #expect(resend.chat(to: 3) == [original])
        #expect(resend.chat(to: 2).isEmpty)
    }

    /// The same id from two different peers is two different messages.
    @Test func idsArePerPeer() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        let fromAlice = harness.send(.msg(room: "lobby", text: "a", id: "SAME"), from: 1)
        let fromBob = harness.send(.msg(room: "lobby", text: "b", id: "SAME"), from: 2)
        #expect(fromAlice.chat(to: 2).map(\.text) == ["a"])
        #expect(fromBob.chat(to: 1).map(\.text) == ["b"])
    }
}
