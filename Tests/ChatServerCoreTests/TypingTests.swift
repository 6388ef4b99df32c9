import ChatProtocol
import ChatServerCore
import Testing

@Suite struct TypingTests {
    /// A typing datagram is relayed by datagram, sender stamped, to the other members that accept datagrams.
    @Test func datagramIsRelayedAsDatagram() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        harness.login(3, nick: "carol")
        var forged = ChatMessage.typing(room: "lobby", isTyping: true)
        forged.sender = "mallory"
        let out = harness.datagram(forged, from: 1)
        for client: ClientID in [2, 3] {
            let relayed = out.datagrams(to: client)
            #expect(relayed.count == 1)
            #expect(relayed.first?.type == "typing" && relayed.first?.sender == "alice")
            #expect(relayed.first?.room == "lobby" && relayed.first?.text == "start")
        }
        #expect(!out.recipients.contains(1))
        #expect(out.deliveries.allSatisfy { $0.payload.bytes.last != 0x0A }, "datagrams carry no LF")
    }

    /// Members without datagrams get typing on their presence stream instead.
    @Test func membersWithoutDatagramsGetPresenceFallback() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob", datagrams: false)
        harness.login(3, nick: "carol")
        let out = harness.datagram(.typing(room: "lobby", isTyping: false), from: 1)
        #expect(out.datagrams(to: 2).isEmpty)
        #expect(out.presence(to: 2).map(\.text) == ["stop"])
        #expect(out.presence(to: 2).first?.sender == "alice")
        #expect(out.deliveries.first { $0.client == 2 }?.live == true)
        #expect(out.datagrams(to: 3).map(\.text) == ["stop"])
    }

    /// Typing in a private conversation (`room` `@NICK`, issue 24): to NICK alone, as `@SENDER`
    /// (how every chat-client names that conversation), by datagram or on the presence stream; to
    /// nobody for an unknown nick, oneself, or a bad text; within the typing rate.
    @Test func privateTypingGoesToTheOtherSideAlone() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "Bob")
        harness.login(3, nick: "carol", datagrams: false)
        let out = harness.datagram(.typing(room: "@bob", isTyping: true), from: 1)
        #expect(out.recipients == [2], "\(out.recipients)")
        #expect(out.datagrams(to: 2).map { [$0.room, $0.sender, $0.text] } == [["@alice", "alice", "start"]])
        #expect(harness.datagram(.typing(room: "@alice", isTyping: false), from: 3).datagrams(to: 1).map(\.room) == ["@carol"])
        #expect(harness.datagram(.typing(room: "@Carol", isTyping: false), from: 2).presence(to: 3).map(\.room) == ["@Bob"])
        #expect(harness.datagram(.typing(room: "@nobody", isTyping: true), from: 1).effects.isEmpty)
        #expect(harness.datagram(.typing(room: "@alice", isTyping: true), from: 1).effects.isEmpty)
        #expect(harness.datagram(ChatMessage(.typing, text: "maybe", room: "@bob"), from: 1).effects.isEmpty)
    }

    /// Typing is not queued for a member whose presence stream does not exist yet.
    @Test func typingIsNotQueued() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob", datagrams: false, presence: false)
        #expect(harness.datagram(.typing(room: "lobby", isTyping: true), from: 1).effects.isEmpty)
        #expect(!harness.openPresence(2).presence(to: 2).contains { $0.type == "typing" })
    }

    /// Typing for a room the sender is not in, or with a bad text or room, is dropped silently.
    @Test func invalidTypingIsDroppedSilently() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob", room: "dev")
        #expect(harness.datagram(.typing(room: "dev", isTyping: true), from: 1).effects.isEmpty)
        #expect(harness.datagram(ChatMessage(.typing, text: "maybe", room: "lobby"), from: 2).effects.isEmpty)
        #expect(harness.datagram(ChatMessage(.typing, text: "start", room: "B A D"), from: 2).effects.isEmpty)
        #expect(Outbox(harness.state.receivedDatagram(Array("{nope".utf8), from: 1, now: harness.now)).effects.isEmpty)
        #expect(harness.datagram(.msg(room: "lobby", text: "not typing", id: "x"), from: 1).effects.isEmpty)
    }

    /// At most the typing burst is relayed at once, then typingPerSecond; the excess is dropped silently.
    @Test func typingRelayIsRateLimited() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        let typing = ChatMessage.typing(room: "lobby", isTyping: true)
        #expect(harness.datagram(typing, from: 1).datagrams(to: 2).count == 1)
        #expect(harness.datagram(typing, from: 1).datagrams(to: 2).count == 1)
        #expect(harness.datagram(typing, from: 1).effects.isEmpty)
        harness.advance(499)
        #expect(harness.datagram(typing, from: 1).effects.isEmpty)
        harness.advance(1)
        #expect(harness.datagram(typing, from: 1).datagrams(to: 2).count == 1)
        #expect(harness.datagram(typing, from: 1).effects.isEmpty)
    }

    /// Typing datagrams never count toward the flood limit, nor does typing on the presence
    /// stream within 10 a second.
    @Test func typingDoesNotCountTowardFlood() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        for round in 0..<30 {
            if round < 10 { harness.send(.typing(room: "lobby", isTyping: true), from: 1, on: .presence) }
            harness.datagram(.typing(room: "lobby", isTyping: true), from: 1)
        }
        // The login's join and status used 2 tokens of the burst of 20; typing used none.
        for index in 1...18 {
            #expect(harness.say("m\(index)", from: 1).chat(to: 1).map(\.type) == ["ack"])
        }
        #expect(harness.say("m19", from: 1).errorCodes(to: 1) == ["rate-limited"])
    }

    /// Beyond 10 a second, typing on the presence stream counts toward the flood limit like any
    /// message (PROTOCOL.md section 12): valid or bogus, it is rate-limited and then closes the
    /// client with FLOODING.
    @Test func presenceTypingBeyondTenASecondCountsTowardFlood() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        var out = Outbox([])
        for index in 0..<1_000 where out.closes.isEmpty {
            let typing = index.isMultiple(of: 2) ? ChatMessage.typing(room: "lobby", isTyping: true) : ChatMessage(type: "typing", text: "bogus", room: "nowhere")
            out = out + harness.send(typing, from: 1, on: .presence)
        }
        // 10 free, then the 18 tokens left of the burst, then 10 rate-limited strikes.
        #expect(out.errorCodes(to: 1) == Array(repeating: "rate-limited", count: 10))
        #expect(out.closes.map(\.code) == [.flooding])
        #expect(harness.state.who().map(\.nick) == ["bob"])
    }

    /// The presence typing allowance refills at 10 a second: a client typing at that pace is never limited.
    @Test func presenceTypingAtTenASecondIsFree() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        for _ in 0..<600 {
            harness.advance(100)
            let out = harness.send(.typing(room: "lobby", isTyping: true), from: 1, on: .presence)
            #expect(out.errorCodes(to: 1).isEmpty)
        }
        #expect(harness.say("still fine", from: 1).chat(to: 1).map(\.type) == ["ack"])
    }

    /// typing on the presence stream is relayed like a typing datagram.
    @Test func typingOnPresenceStreamIsRelayed() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice", datagrams: false)
        harness.login(2, nick: "bob")
        let out = harness.send(.typing(room: "lobby", isTyping: true), from: 1, on: .presence)
        #expect(out.datagrams(to: 2).map(\.sender) == ["alice"])
    }

    /// The original client's presence message means typing start in lobby.
    @Test func legacyPresenceMeansTypingStartInLobby() throws {
        let harness = try Harness()
        harness.login(1, nick: "old", datagrams: false, legacy: true)
        harness.login(2, nick: "bob")
        harness.login(3, nick: "carol", datagrams: false)
        let out = harness.send(ChatMessage(type: "presence", text: "", sender: "old"), from: 1, on: .presence)
        #expect(out.datagrams(to: 2).map(\.text) == ["start"])
        #expect(out.datagrams(to: 2).first?.room == "lobby")
        #expect(out.presence(to: 3).map(\.type) == ["typing"])
        #expect(out.presence(to: 3).first?.sender == "old")
    }
}
