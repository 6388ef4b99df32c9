import ChatProtocol
import ChatServerCore
import Testing

@Suite struct ReplayTests {
    /// Builds a lobby with alice and `count` messages from her, seq 2 to count + 1.
    private func lobby(messages count: Int, configuration: ChatServerConfiguration = ChatServerConfiguration()) throws -> Harness {
        let harness = try Harness.floodFree(configuration)
        harness.login(1, nick: "alice")
        for index in 1...count {
            harness.advance(1)
            harness.say("m\(index)", from: 1)
        }
        return harness
    }

    /// Without since, a joiner gets the last 20 stored events, oldest first, as replay, then its own joined.
    @Test func withoutSinceReplaysLastTwenty() throws {
        let harness = try lobby(messages: 30)
        let out = harness.login(2, nick: "bob")
        let deliveries = out.deliveries.filter { $0.client == 2 && $0.stream == .chat }
        let replayed = deliveries.filter { $0.message.replay == true }
        #expect(replayed.count == 20)
        #expect(replayed.map { $0.message.seq ?? 0 } == Array(12...31))
        #expect(replayed.allSatisfy { !$0.live })
        #expect(replayed.first?.message.text == "m11")
        #expect(deliveries.last?.message.type == "joined")
        #expect(deliveries.last?.message.sender == "bob")
        #expect(deliveries.last?.live == true)
        #expect(deliveries.last?.message.seq == 32)
    }

    /// With since, the joiner gets exactly the events newer than since.
    @Test func withSinceReplaysNewerEvents() throws {
        let harness = try lobby(messages: 30)
        let out = harness.login(2, nick: "bob", since: 5)
        let replayed = out.chat(to: 2).filter { $0.replay == true }
        #expect(replayed.map { $0.seq ?? 0 } == Array(6...31))
        #expect(replayed.first?.type == "msg")
        #expect(replayed.first?.sender == "alice")
        #expect(replayed.first?.id != nil)
    }

    /// since at or beyond the newest seq replays nothing; a negative since replays from the start.
    @Test func sinceBoundaries() throws {
        let harness = try lobby(messages: 3)
        #expect(harness.login(2, nick: "bob", since: 4).chat(to: 2).filter { $0.replay == true }.isEmpty)
        let fromStart = harness.login(3, nick: "carol", since: -7).chat(to: 3).filter { $0.replay == true }
        #expect(fromStart.map { $0.seq ?? 0 } == Array(1...5))
    }

    /// When more than maxReplay events are newer than since, the newest are replayed and the
    /// first replayed seq exceeds since + 1; history pages back to the rest.
    @Test func truncatedReplayStartsAfterSincePlusOne() throws {
        let harness = try lobby(messages: 12, configuration: ChatServerConfiguration(defaultReplay: 2, maxReplay: 5))
        let out = harness.login(2, nick: "bob", since: 0)
        let replayed = out.chat(to: 2).filter { $0.replay == true }
        #expect(replayed.map { $0.seq ?? 0 } == Array(9...13))
        let firstSeq = try #require(replayed.first?.seq)
        #expect(firstSeq > 0 + 1)
        let page = harness.send(.history(room: "lobby", before: firstSeq, limit: 200), from: 2).chat(to: 2)
        #expect(page.dropLast().map { $0.seq ?? 0 } == Array(1...8))
        #expect(page.last?.type == "history-end")
    }

    /// The default replay size follows the configuration, and a room without events replays nothing.
    @Test func defaultReplayFollowsConfiguration() throws {
        let harness = try lobby(messages: 10, configuration: ChatServerConfiguration(defaultReplay: 3))
        #expect(harness.login(2, nick: "bob").chat(to: 2).filter { $0.replay == true }.count == 3)
        #expect(harness.send(.join(room: "empty"), from: 2).chat(to: 2).map(\.type) == ["joined"])
    }

    /// Replay includes every stored kind: msg, joined, left and nick, with their fields.
    @Test func replayIncludesEveryStoredKind() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        harness.say("hello", from: 1)
        harness.send(.nick("bobby"), from: 2)
        harness.disconnect(2, reason: "quit")
        let replayed = harness.login(3, nick: "carol", since: 0).chat(to: 3).filter { $0.replay == true }
        #expect(replayed.map(\.type) == ["joined", "joined", "msg", "nick", "left"])
        #expect(replayed[3].sender == "bob" && replayed[3].text == "bobby")
        #expect(replayed[4].sender == "bobby" && replayed[4].text == "quit")
        #expect(replayed.allSatisfy { $0.room == "lobby" && $0.ts != nil })
    }
}
