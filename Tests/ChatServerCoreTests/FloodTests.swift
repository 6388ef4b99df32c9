import ChatProtocol
import ChatServerCore
import Testing

@Suite struct FloodTests {
    /// A logged-in alice with a full bucket (no presence status spent), and bob to watch.
    private func room() throws -> Harness {
        let harness = try Harness()
        harness.login(1, nick: "alice", presence: false)
        harness.login(2, nick: "bob", presence: false)
        harness.advance(10_000)
        return harness
    }

    /// 20 messages pass in a burst; the 21st gets rate-limited with its id and is dropped.
    @Test func burstThenRateLimited() throws {
        let harness = try room()
        for index in 1...20 {
            #expect(harness.say("m\(index)", from: 1).chat(to: 2).count == 1)
        }
        let out = harness.send(.msg(room: "lobby", text: "one too many", id: "F21"), from: 1)
        #expect(out.errorCodes(to: 1) == ["rate-limited"])
        #expect(out.chat(to: 1).first?.id == "F21")
        #expect(out.chat(to: 2).isEmpty)
        #expect(out.closes.isEmpty)
    }

    /// The bucket refills at 5 messages a second.
    @Test func bucketRefillsAtFivePerSecond() throws {
        let harness = try room()
        for index in 1...20 { harness.say("m\(index)", from: 1) }
        harness.advance(199)
        #expect(harness.say("early", from: 1).errorCodes(to: 1) == ["rate-limited"])
        harness.advance(1)
        #expect(harness.say("on time", from: 1).chat(to: 2).count == 1)
        harness.advance(1_000)
        for index in 1...5 {
            #expect(harness.say("s\(index)", from: 1).chat(to: 2).count == 1)
        }
        #expect(harness.say("s6", from: 1).errorCodes(to: 1) == ["rate-limited"])
    }

    /// 10 rate-limited errors within 10 s close the client with FLOODING; mates see left flooding and offline.
    @Test func tenStrikesCloseWithFlooding() throws {
        let harness = try room()
        harness.openPresence(2)
        for index in 1...20 { harness.say("m\(index)", from: 1) }
        // 10 ms apart: the 5/s refill adds too little to let any of them through.
        for _ in 1...9 {
            harness.advance(10)
            #expect(harness.say("spam", from: 1).closes.isEmpty)
        }
        harness.advance(10)
        let out = harness.say("spam", from: 1)
        #expect(out.errorCodes(to: 1) == ["rate-limited"])
        #expect(out.closes.map(\.code) == [.flooding])
        #expect(out.closes.map(\.client) == [1])
        #expect(out.chat(to: 2).map(\.type) == ["left"])
        #expect(out.chat(to: 2).first?.text == "flooding")
        #expect(out.presence(to: 2).map(\.text) == ["offline"])
        #expect(harness.say("more", from: 1).actions.isEmpty)
    }

    /// Strikes more than 10 s apart do not add up to a close.
    @Test func strikesOutsideTheWindowDoNotClose() throws {
        let harness = try room()
        for index in 1...20 { harness.say("m\(index)", from: 1) }
        for _ in 1...9 { harness.send(ChatMessage(type: "x"), from: 1) }
        harness.advance(10_001)
        for index in 1...20 { harness.say("n\(index)", from: 1) }
        for _ in 1...9 {
            #expect(harness.send(ChatMessage(type: "x"), from: 1).closes.isEmpty)
        }
        #expect(harness.send(ChatMessage(type: "x"), from: 1).closes.map(\.code) == [.flooding])
    }

    /// Malformed messages count toward the flood limit too.
    @Test func malformedMessagesCount() throws {
        let harness = try room()
        for _ in 1...20 {
            #expect(harness.event(.malformed(.badJSON, id: nil), from: 1).errorCodes(to: 1) == ["bad-json"])
        }
        #expect(harness.say("valid", from: 1).errorCodes(to: 1) == ["rate-limited"])
    }

    /// Non-typing presence messages count toward the flood limit.
    @Test func statusMessagesCount() throws {
        let harness = try room()
        for index in 1...20 {
            harness.send(.status(index % 2 == 0 ? "online" : "away"), from: 1, on: .presence)
        }
        #expect(harness.send(.status("away"), from: 1, on: .presence).errorCodes(to: 1) == ["rate-limited"])
    }

    /// The flood limits follow the configuration.
    @Test func limitsFollowConfiguration() throws {
        let harness = try Harness(configuration: ChatServerConfiguration(floodBurst: 3, floodPerSecond: 1, floodStrikes: 2))
        harness.login(1, nick: "alice", presence: false)
        harness.advance(5_000)
        for index in 1...3 { #expect(harness.say("m\(index)", from: 1).errorCodes(to: 1).isEmpty) }
        #expect(harness.say("x", from: 1).closes.isEmpty)
        #expect(harness.say("y", from: 1).closes.map(\.code) == [.flooding])
    }
}
