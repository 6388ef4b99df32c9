import ChatProtocol
import ChatServerCore
import Testing

@Suite struct HistoryRequestTests {
    /// A lobby whose events have seq 1 (alice joined) and 2 to count + 1 (her messages).
    private func lobby(messages count: Int) throws -> Harness {
        let harness = try Harness.floodFree()
        harness.login(1, nick: "alice")
        for index in 1...count {
            harness.say("m\(index)", from: 1)
        }
        return harness
    }

    private func seqs(_ messages: [ChatMessage]) -> [Int64] {
        messages.filter { $0.type != "history-end" }.compactMap(\.seq)
    }

    /// history without before returns the newest limit events, oldest first, marked replay, not live, then history-end.
    @Test func newestPageWithoutBefore() throws {
        let harness = try lobby(messages: 30)
        let out = harness.send(.history(room: "lobby", limit: 10), from: 1)
        let page = out.chat(to: 1)
        #expect(seqs(page) == Array(22...31))
        #expect(page.dropLast().allSatisfy { $0.replay == true })
        #expect(page.last?.type == "history-end" && page.last?.room == "lobby")
        #expect(out.deliveries.allSatisfy { !$0.live })
    }

    /// history with before pages back: events with seq < before, newest of them first cut to limit.
    @Test func pagingWithBefore() throws {
        let harness = try lobby(messages: 30)
        #expect(seqs(harness.send(.history(room: "lobby", before: 21, limit: 5), from: 1).chat(to: 1)) == Array(16...20))
        #expect(seqs(harness.send(.history(room: "lobby", before: 4, limit: 5), from: 1).chat(to: 1)) == [1, 2, 3])
        #expect(harness.send(.history(room: "lobby", before: 1), from: 1).chat(to: 1).map(\.type) == ["history-end"])
    }

    /// Without limit 50 events come back; a limit over 200 is clamped to 200.
    @Test func defaultAndMaximumLimit() throws {
        let harness = try lobby(messages: 260)
        #expect(seqs(harness.send(.history(room: "lobby"), from: 1).chat(to: 1)).count == 50)
        let clamped = seqs(harness.send(.history(room: "lobby", limit: 5_000), from: 1).chat(to: 1))
        #expect(clamped == Array(62...261))
    }

    /// A limit below 1 is bad-field.
    @Test func limitBelowOneIsBadField() throws {
        let harness = try lobby(messages: 1)
        #expect(harness.send(.history(room: "lobby", limit: 0), from: 1).errorCodes(to: 1) == ["bad-field"])
        #expect(harness.send(.history(room: "lobby", limit: -3), from: 1).errorCodes(to: 1) == ["bad-field"])
    }

    /// history of a room the client is not in is not-joined; of an invalid name, bad-room.
    @Test func historyErrors() throws {
        let harness = try lobby(messages: 1)
        harness.login(2, nick: "bob", room: "dev")
        #expect(harness.send(.history(room: "dev"), from: 1).errorCodes(to: 1) == ["not-joined"])
        #expect(harness.send(.history(room: "DEV!"), from: 1).errorCodes(to: 1) == ["bad-room"])
    }

    /// Only the most recent historyPerRoom events are guaranteed; older ones may be pruned.
    @Test func retentionFollowsConfiguration() throws {
        let harness = try Harness.floodFree(ChatServerConfiguration(historyPerRoom: 5))
        harness.login(1, nick: "alice")
        for index in 1...40 { harness.say("m\(index)", from: 1) }
        let page = seqs(harness.send(.history(room: "lobby", limit: 200), from: 1).chat(to: 1))
        #expect(page.count >= 5)
        #expect(page.count < 41)
        #expect(page.suffix(5) == [37, 38, 39, 40, 41])
    }
}
