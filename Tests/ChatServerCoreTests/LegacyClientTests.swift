import ChatProtocol
import ChatServerCore
import Testing

/// The original SimpleQuicClient (ALPN `chat`): sends only {text, type, sender}, may omit the
/// LF between messages, and types with {"type":"presence"} on the presence stream.
@Suite struct LegacyClientTests {
    /// Messages written back to back without LF, with only text, type and sender, work end to end.
    @Test func joinAndMessageWithoutLineFeeds() throws {
        let harness = try Harness()
        harness.login(2, nick: "bob")
        harness.connect(1, legacy: true, datagrams: false)
        let out = harness.raw(
            #"{"text":"","type":"join","sender":"oldtimer"}{"text":"hello from iOS","type":"msg","sender":"oldtimer"}"#,
            from: 1)
        #expect(out.chat(to: 1).map(\.type) == ["welcome", "joined", "joined", "ack"])
        #expect(out.chat(to: 1)[1].replay == true && out.chat(to: 1)[1].sender == "bob")
        #expect(out.chat(to: 1).first.flatMap(\.peer).map(ChatValidation.isValidPeerID) == true)
        let relayed = out.chat(to: 2).filter { $0.type == "msg" }
        #expect(relayed.count == 1)
        #expect(relayed.first?.sender == "oldtimer" && relayed.first?.room == "lobby" && relayed.first?.text == "hello from iOS")
        #expect(relayed.first?.id == nil)
    }

    /// Everything sent to a legacy client carries type, text and sender, so its struct decodes it.
    @Test func everyMessageCarriesTypeTextSender() throws {
        let harness = try Harness()
        harness.connect(1, legacy: true, datagrams: false)
        var out = harness.raw(#"{"text":"","type":"join","sender":"oldtimer"}"#, from: 1)
        out = out + harness.raw(#"{"text":"","type":"presence","sender":"oldtimer"}"#, from: 1, on: .presence)
        out = out + harness.login(2, nick: "bob")
        out = out + harness.say("hi", from: 2)
        out = out + harness.send(.typing(room: "lobby", isTyping: true), from: 2, on: .presence)
        out = out + harness.raw(#"{"text":"x","type":"bogus","sender":"oldtimer"}"#, from: 1)
        let toLegacy = out.deliveries.filter { $0.client == 1 }
        #expect(Set(toLegacy.map(\.message.type)) == ["welcome", "joined", "roster", "status", "msg", "typing", "error"])
        for delivery in toLegacy {
            let json = String(decoding: delivery.payload.bytes, as: UTF8.self)
            #expect(json.contains(#""type":"#) && json.contains(#""text":"#) && json.contains(#""sender":"#), "\(json)")
        }
    }

    /// A legacy client's presence message reaches a modern client as a typing datagram.
    @Test func legacyTypingReachesModernClient() throws {
        let harness = try Harness()
        harness.connect(1, legacy: true, datagrams: false)
        harness.raw(#"{"text":"","type":"join","sender":"oldtimer"}"#, from: 1)
        harness.login(2, nick: "bob")
        let out = harness.raw(#"{"text":"","type":"presence","sender":"oldtimer"}"#, from: 1, on: .presence)
        #expect(out.datagrams(to: 2).map(\.type) == ["typing"])
        #expect(out.datagrams(to: 2).first?.sender == "oldtimer")
    }
}
