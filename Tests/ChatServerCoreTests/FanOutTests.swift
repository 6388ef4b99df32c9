import ChatProtocol
import ChatServerCore
import Testing

@Suite struct FanOutTests {
    /// A broadcast is encoded once: every member's send shares the same payload object.
    @Test func broadcastSharesOnePayload() throws {
        let harness = try Harness()
        for client: ClientID in 1...6 { harness.login(client, nick: "user\(client)") }
        let out = harness.say("to everyone", from: 1)
        let relays = out.deliveries.filter { $0.client != 1 }
        #expect(relays.count == 5)
        #expect(Set(relays.map(\.client)) == [2, 3, 4, 5, 6])
        let first = try #require(relays.first?.payload)
        #expect(relays.allSatisfy { $0.payload === first })
        #expect(first.bytes.last == 0x0A)
    }

    /// who lists every user with status and sorted rooms, sorted by nick case-insensitively.
    @Test func whoListsUsers() throws {
        let harness = try Harness()
        harness.login(1, nick: "zoe", room: "dev")
        harness.send(.join(room: "art"), from: 1)
        harness.login(2, nick: "Adam")
        harness.send(.status("away"), from: 2, on: .presence)
        harness.connect(3)
        let who = harness.state.who()
        #expect(who.map(\.nick) == ["Adam", "zoe"])
        #expect(who.map(\.status) == ["away", "online"])
        #expect(who.map(\.rooms) == [["lobby"], ["art", "dev"]])
    }

    /// Joins, nick changes and closes are logged; plain messages are not.
    @Test func importantEventsAreLogged() throws {
        let harness = try Harness()
        #expect(harness.login(1, nick: "alice").logs.map(\.event).contains("join"))
        #expect(harness.send(.nick("alicia"), from: 1).logs.map(\.event) == ["nick change"])
        #expect(harness.say("quiet", from: 1).logs.isEmpty)
        #expect(harness.disconnect(1).logs.first?.fields["nick"] == "alicia")
    }
}
