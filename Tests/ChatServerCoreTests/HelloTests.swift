import ChatProtocol
import ChatServerCore
import Testing

@Suite struct HelloTests {
    /// The first join is answered with welcome (assigned nick, peer, server name), then the client's own joined.
    @Test func welcomeThenJoined() throws {
        let harness = try Harness()
        harness.connect(1)
        let out = harness.send(.join(nick: "alice", peer: Harness.peer(1), room: "lobby"), from: 1)
        let chat = out.chat(to: 1)
        #expect(chat.map(\.type) == ["welcome", "joined"])
        #expect(chat[0].sender == "alice")
        #expect(chat[0].peer == Harness.peer(1))
        #expect(chat[0].text == "qchat")
        #expect(chat[1].room == "lobby")
        #expect(chat[1].sender == "alice")
        #expect(chat[1].seq == 1)
        #expect(chat[1].ts == harness.now)
        #expect(out.closes.isEmpty)
    }

    /// The server name in welcome comes from the configuration.
    @Test func welcomeCarriesConfiguredServerName() throws {
        let harness = try Harness(configuration: ChatServerConfiguration(serverName: "testbed"))
        let out = harness.login(1, nick: "alice")
        #expect(out.chat(to: 1).first?.text == "testbed")
    }

    /// A join without room joins lobby.
    @Test func joinWithoutRoomMeansLobby() throws {
        let harness = try Harness()
        harness.connect(1)
        let out = harness.send(ChatMessage(type: "join", sender: "bob", peer: Harness.peer(1)), from: 1)
        #expect(out.chat(to: 1).last?.type == "joined")
        #expect(out.chat(to: 1).last?.room == "lobby")
    }

    /// A join without peer gets a random, valid, upper-case UUID, different per connection.
    @Test func joinWithoutPeerGetsRandomPeer() throws {
        let harness = try Harness()
        harness.connect(1)
        harness.connect(2)
        let first = harness.send(ChatMessage(type: "join", sender: "a"), from: 1).chat(to: 1)[0]
        let second = harness.send(ChatMessage(type: "join", sender: "b"), from: 2).chat(to: 2)[0]
        let firstPeer = try #require(first.peer)
        #expect(ChatValidation.isValidPeerID(firstPeer))
        #expect(firstPeer == firstPeer.uppercased())
        #expect(firstPeer != second.peer)
    }

    /// An invalid peer is bad-field, the connection stays open, and the next valid join is the hello.
    @Test func invalidPeerIsBadFieldAndConnectionStaysOpen() throws {
        let harness = try Harness()
        harness.connect(1)
        let bad = harness.send(.join(nick: "alice", peer: "not-a-uuid", room: "lobby"), from: 1)
        #expect(bad.errorCodes(to: 1) == ["bad-field"])
        #expect(bad.closes.isEmpty)
        let good = harness.send(.join(nick: "alice", peer: Harness.peer(1), room: "lobby"), from: 1)
        #expect(good.chat(to: 1).first?.type == "welcome")
    }

    /// A first join with a bad nick gets bad-nick and the connection stays open.
    @Test func badNickOnFirstJoinLeavesConnectionOpen() throws {
        let harness = try Harness()
        harness.connect(1)
        for nick in ["", "9lives", "has space", String(repeating: "a", count: 25)] {
            let out = harness.send(.join(nick: nick, peer: Harness.peer(1), room: "lobby"), from: 1)
            #expect(out.errorCodes(to: 1) == ["bad-nick"], "nick \(nick)")
            #expect(out.closes.isEmpty)
        }
        #expect(harness.state.who().isEmpty)
        let hello = harness.send(.join(nick: "alice", peer: Harness.peer(1), room: "lobby"), from: 1)
        #expect(hello.chat(to: 1).first?.sender == "alice")
    }

    /// A first join with a bad room gets bad-room and the connection stays open.
    @Test func badRoomOnFirstJoinLeavesConnectionOpen() throws {
        let harness = try Harness()
        harness.connect(1)
        let out = harness.send(.join(nick: "alice", peer: Harness.peer(1), room: "no spaces"), from: 1)
        #expect(out.errorCodes(to: 1) == ["bad-room"])
        #expect(out.closes.isEmpty)
        #expect(harness.state.nick(of: 1) == nil)
    }

    /// A well-formed first message that is not join closes with PROTOCOL_ERROR; later events are ignored.
    @Test func firstMessageNotJoinClosesWithProtocolError() throws {
        for first in [ChatMessage.msg(room: "lobby", text: "hi", id: "x"), ChatMessage(type: "frobnicate"), .nick("bob")] {
            let harness = try Harness()
            harness.connect(1)
            let out = harness.send(first, from: 1)
            #expect(out.closes.map(\.code) == [.protocolError], "first \(first.type)")
            #expect(harness.send(.join(nick: "alice", room: "lobby"), from: 1).actions.isEmpty)
        }
    }

    /// A malformed first message costs an error only: it is not a message, so the connection stays open.
    @Test func malformedFirstMessageGetsErrorOnly() throws {
        let harness = try Harness()
        harness.connect(1)
        let out = harness.raw("{not json}\n", from: 1)
        #expect(out.errorCodes(to: 1) == ["bad-json"])
        #expect(out.closes.isEmpty)
        #expect(harness.send(.join(nick: "alice", room: "lobby"), from: 1).chat(to: 1).first?.type == "welcome")
    }

    /// A message over 65536 bytes closes with PROTOCOL_ERROR.
    @Test func oversizedMessageClosesWithProtocolError() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        let huge = #"{"type":"msg","text":""# + String(repeating: "a", count: 70_000) + #""}"#
        let out = harness.raw(huge, from: 1)
        #expect(out.closes.map(\.code) == [.protocolError])
    }

    /// Invalid UTF-8 on a stream closes with PROTOCOL_ERROR, and room mates see left with text protocol-error.
    @Test func invalidUTF8ClosesWithProtocolError() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        let out = harness.raw([0x7B, 0x22, 0xFF, 0xFE], from: 1)
        #expect(out.closes.map(\.code) == [.protocolError])
        let left = out.chat(to: 2).filter { $0.type == "left" }
        #expect(left.map(\.text) == ["protocol-error"])
        #expect(left.first?.sender == "alice")
    }

    /// A taken nick gets the first free suffix, compared case-insensitively, and welcome says so.
    @Test func takenNickGetsFirstFreeSuffix() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        #expect(harness.login(2, nick: "alice").chat(to: 2).first?.sender == "alice_2")
        #expect(harness.login(3, nick: "ALICE").chat(to: 3).first?.sender == "ALICE_3")
        harness.disconnect(2)
        #expect(harness.login(4, nick: "Alice").chat(to: 4).first?.sender == "Alice_2")
    }

    /// A 24-character nick that is taken is shortened so that the suffixed nick stays within 24 characters.
    @Test func suffixShortensLongNick() throws {
        let harness = try Harness()
        let long = "abcdefghijklmnopqrstuvwx"
        harness.login(1, nick: long)
        let assigned = try #require(harness.login(2, nick: long).chat(to: 2).first?.sender)
        #expect(assigned == "abcdefghijklmnopqrstuv_2")
        #expect(assigned.count == ChatLimits.maxNickLength)
        #expect(ChatValidation.isValidNick(assigned))
    }

    /// Room names are lower-cased by the server.
    @Test func roomNameIsLowerCased() throws {
        let harness = try Harness()
        let out = harness.login(1, nick: "alice", room: "Dev-Ops_2")
        #expect(out.chat(to: 1).last?.room == "dev-ops_2")
        #expect(harness.state.who().first?.rooms == ["dev-ops_2"])
    }

    /// The sender field is ignored after the first join: a later join does not rename.
    @Test func senderOfLaterJoinIsIgnored() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        let out = harness.send(.join(nick: "mallory", room: "dev"), from: 1)
        #expect(out.chat(to: 1).last?.sender == "alice")
        #expect(harness.state.nick(of: 1) == "alice")
    }

    /// Events for a connection id the core does not know are ignored.
    @Test func unknownClientIsIgnored() throws {
        let harness = try Harness()
        #expect(harness.send(.join(nick: "alice", room: "lobby"), from: 99).actions.isEmpty)
        #expect(harness.datagram(.typing(room: "lobby", isTyping: true), from: 99).actions.isEmpty)
        #expect(harness.openPresence(99).actions.isEmpty)
        #expect(harness.disconnect(99).actions.isEmpty)
    }
}
