import ChatProtocol
import ChatServerCore
import Testing

/// New limits while clients are connected (a reload): they apply to everyone at once, and a
/// configuration out of range changes nothing.
@Suite struct ReconfigurationTests {
    private func room(_ configuration: ChatServerConfiguration = ChatServerConfiguration()) throws -> Harness {
        let harness = try Harness(configuration: configuration)
        harness.login(1, nick: "alice", presence: false)
        harness.login(2, nick: "bob", presence: false)
        harness.advance(10_000)
        return harness
    }

    /// A lowered burst reaches a connected client's bucket: it keeps no more tokens than the new burst.
    @Test func loweredBurstAppliesToConnectedClients() throws {
        let harness = try room()
        for index in 1...3 { harness.say("m\(index)", from: 1) }
        var lower = ChatServerConfiguration()
        lower.floodBurst = 2
        lower.floodPerSecond = 0.01
        try harness.state.reconfigure(lower, now: harness.now)
        #expect(harness.say("a", from: 1).chat(to: 2).count == 1)
        #expect(harness.say("b", from: 1).chat(to: 2).count == 1)
        #expect(harness.say("c", from: 1).errorCodes(to: 1) == ["rate-limited"])
        #expect(harness.state.configuration.floodBurst == 2)
    }

    /// A raised burst and rate let a connected client refill to the new capacity at the new rate; the tokens it had are kept.
    @Test func raisedLimitsRefillAtTheNewRate() throws {
        let harness = try room()
        for index in 1...20 { harness.say("m\(index)", from: 1) }
        #expect(harness.say("over", from: 1).errorCodes(to: 1) == ["rate-limited"])
        var higher = ChatServerConfiguration()
        higher.floodBurst = 100
        higher.floodPerSecond = 100
        try harness.state.reconfigure(higher, now: harness.now)
        harness.advance(500)
        for index in 1...50 { #expect(harness.say("n\(index)", from: 1).chat(to: 2).count == 1) }
        #expect(harness.say("too many", from: 1).errorCodes(to: 1) == ["rate-limited"])
    }

    /// Fewer strikes before FLOODING apply to the strikes already collected.
    @Test func fewerStrikesApplyToCollectedOnes() throws {
        var strict = ChatServerConfiguration()
        strict.floodBurst = 1
        strict.floodPerSecond = 0.01
        let harness = try room(strict)
        harness.say("one", from: 1)
        for index in 1...3 { #expect(harness.say("x\(index)", from: 1).errorCodes(to: 1) == ["rate-limited"]) }
        strict.floodStrikes = 4
        try harness.state.reconfigure(strict, now: harness.now)
        #expect(harness.say("fourth", from: 1).closes.map(\.code) == [.flooding])
    }

    /// The server name and rooms per client apply from the next request; a client over a lowered room limit keeps its rooms.
    @Test func perRequestLimitsApplyNext() throws {
        let harness = try room()
        harness.send(.join(room: "dev"), from: 1)
        var changed = ChatServerConfiguration()
        changed.serverName = "Renamed"
        changed.maxRoomsPerClient = 1
        try harness.state.reconfigure(changed, now: harness.now)
        #expect(harness.send(.join(room: "ops"), from: 1).errorCodes(to: 1) == ["too-many-rooms"])
        #expect(harness.say("still here", from: 1, in: "dev").errorCodes(to: 1).isEmpty)
        let welcome = harness.login(3, nick: "carol").chat(to: 3).first { $0.type == "welcome" }
        #expect(welcome?.text == "Renamed")
    }

    /// A lowered idle-room bound forgets the longest idle rooms at once.
    @Test func loweredIdleRoomBoundForgetsNow() throws {
        let harness = try room()
        for room in ["a", "b", "c"] {
            harness.send(.join(room: room), from: 1)
            harness.send(.part(room: room), from: 1)
        }
        #expect(harness.state.idleRoomCount == 3)
        var fewer = ChatServerConfiguration()
        fewer.idleRoomLimit = 1
        try harness.state.reconfigure(fewer, now: harness.now)
        #expect(harness.state.idleRoomCount == 1)
    }

    /// Server operators added by a reload may moderate at once, and those removed may not, with no reconnect.
    @Test func operatorsChangeForConnectedAccounts() throws {
        var configuration = ChatServerConfiguration()
        configuration.operators = ["admin"]
        let harness = try Harness(configuration: configuration)
        harness.registered(1, nick: "admin")
        harness.registered(2, nick: "alice")
        harness.hello(3, nick: "guest")
        #expect(harness.send(.kick(room: "lobby", nick: "guest"), from: 2).errorCodes(to: 2) == ["not-operator"])
        configuration.operators = ["alice"]
        try harness.state.reconfigure(configuration, now: harness.now)
        #expect(harness.send(.mode(room: "lobby", "+invite"), from: 1).errorCodes(to: 1) == ["not-operator"])
        #expect(harness.send(.kick(room: "lobby", nick: "guest"), from: 2).errorCodes(to: 2).isEmpty)
    }

    /// A configuration out of range is refused and the running one stays.
    @Test func invalidConfigurationChangesNothing() throws {
        let harness = try room()
        var broken = ChatServerConfiguration()
        broken.floodBurst = 0
        broken.serverName = "Broken"
        #expect(throws: ChatServerConfigurationError.self) { try harness.state.reconfigure(broken, now: harness.now) }
        #expect(harness.state.configuration == ChatServerConfiguration())
    }

    /// The core counts its error replies by code and the typing it drops over the relay rate; the census counts clients, rooms and memberships.
    @Test func statisticsAndCensus() throws {
        let harness = try room()
        harness.send(.join(room: "dev"), from: 2)
        harness.send(.msg(room: "nowhere", text: "x", id: "e1"), from: 1)
        harness.send(.msg(room: "Bad Room", text: "x", id: "e2"), from: 1)
        for _ in 0..<5 { harness.datagram(.typing(room: "lobby", isTyping: true), from: 1) }
        let statistics = harness.state.statistics
        #expect(statistics.errorsSent[.notJoined] == 1 && statistics.errorsSent[.badRoom] == 1)
        #expect(statistics.typingDropped == 3)
        #expect(harness.state.activeClientCount == 2)
        #expect(harness.state.roomCount == 2 && harness.state.roomMembershipCount == 3)
    }
}
