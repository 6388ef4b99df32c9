import ChatProtocol
@testable import ChatServerCore
import Testing

/// With a shared log, a sender's `ack` keeps its place in the room's seq order (issue 23, item
/// 18): the script's reply (the seq) and the room's feed (the events) reach a node on different
/// connections, and the world here chooses which comes first.
@Suite struct SharedAckOrderTests {
    private func twoNodes() throws -> SharedLogWorld {
        let world = SharedLogWorld()
        var unlimited = ChatServerConfiguration()
        unlimited.floodBurst = 1_000_000
        try world.node("a", configuration: unlimited)
        try world.node("b", configuration: unlimited)
        world.login(1, nick: "alice", on: "a")
        world.login(2, nick: "bob", on: "b")
        return world
    }

    /// What `client` got live on its chat stream in lobby with a seq, as "type:seq", in order.
    private func ordered(_ world: SharedLogWorld, _ client: ClientID, on node: String, from mark: Int = 0) -> [String] {
        Outbox(Array(world.nodes[node]!.actions[mark...])).chat(to: client)
            .filter { $0.seq != nil && $0.replay != true && $0.room == "lobby" }
            .map { "\($0.type):\($0.seq!)" }
    }

    private func isIncreasing(_ received: [String]) -> Bool {
        let seqs = received.compactMap { Int64($0.split(separator: ":").last ?? "") }
        return zip(seqs, seqs.dropFirst()).allSatisfy { $0 < $1 }
    }

    private func isReply(to node: String) -> (SharedLogWorld.Step) -> Bool {
        { step in if case .reply(node, _, _) = step { true } else { false } }
    }

    private func isDelivery(to node: String) -> (SharedLogWorld.Step) -> Bool {
        { step in if case .deliver(node, _, _) = step { true } else { false } }
    }

    /// The reply first: bob's message is stored before alice's, but alice's node hears the reply
    /// to her append before the feed brings bob's. Her ack waits for bob's message.
    @Test func ackWaitsForEarlierEventsStillOnTheirWay() throws {
        let world = try twoNodes()
        let mark = world.nodes["a"]!.actions.count
        world.say("from bob", from: 2, on: "b", id: "b1")
        world.say("from alice", from: 1, on: "a", id: "a1")
        let bobSeq = try #require(world.log["lobby"]?.first { $0.kind == .msg }?.seq)
        #expect(world.step(where: isReply(to: "a")))
        #expect(ordered(world, 1, on: "a", from: mark).isEmpty, "no ack while bob's message is on its way")
        world.settle()
        #expect(ordered(world, 1, on: "a", from: mark) == ["msg:\(bobSeq)", "ack:\(bobSeq + 1)"])
    }

    /// The feed first: alice's own event and then bob's later one reach her node before the
    /// reply to her append. Her ack goes out in her event's place, once, and the reply adds nothing.
    @Test func ackGoesOutWithItsEventWhenTheReplyIsLate() throws {
        let world = try twoNodes()
        let mark = world.nodes["a"]!.actions.count
        world.say("from alice", from: 1, on: "a", id: "a1")
        world.say("from bob", from: 2, on: "b", id: "b1")
        let seqs = (world.log["lobby"] ?? []).filter { $0.kind == .msg }.map(\.seq)
        world.settle(where: isDelivery(to: "a"))
        #expect(ordered(world, 1, on: "a", from: mark) == ["ack:\(seqs[0])", "msg:\(seqs[1])"])
        world.settle()
        #expect(ordered(world, 1, on: "a", from: mark) == ["ack:\(seqs[0])", "msg:\(seqs[1])"], "the reply sends nothing more")
        #expect(world.nodes["a"]!.state.pendingRoomAppends == 0)
    }

    /// The reply lost after the event was stored and delivered: the event showed it is stored,
    /// so the client keeps its ack and is not told `unavailable`.
    @Test func eventDeliveredBeforeALostReplyStaysAcknowledged() throws {
        let world = try twoNodes()
        let mark = world.nodes["a"]!.actions.count
        world.storedButLost = true
        world.publishBeforeReply = true
        world.say("once", from: 1, on: "a", id: "lost")
        world.settle()
        let received = Outbox(Array(world.nodes["a"]!.actions[mark...])).chat(to: 1)
        #expect(received.map(\.type) == ["ack"])
        #expect(received.first?.id == "lost" && received.first?.seq == world.log["lobby"]?.last?.seq)
    }

    /// Many messages from both nodes, with replies and deliveries stepped in an order drawn at
    /// random (each node's feed stays in seq order, as the glue's is): every client's acks and
    /// messages come in seq order, each once.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64]) func everyInterleavingKeepsTheOrder(seed: UInt64) throws {
        let world = try twoNodes()
        world.login(3, nick: "carol", on: "a")
        let marks = world.nodes.mapValues { $0.actions.count }
        var random = SplitMixSequence(seed: seed)
        func stepAtRandom() {
            let replyFirst = random.next() % 2 == 0
            let isReply = { (step: SharedLogWorld.Step) -> Bool in if case .reply = step { true } else { false } }
            if !world.step(where: { isReply($0) == replyFirst }) { world.step() }
        }
        for round in 0..<20 {
            world.say("a\(round)", from: 1, on: "a")
            world.say("b\(round)", from: 2, on: "b")
            world.say("c\(round)", from: 3, on: "a")
            for _ in 0..<Int(random.next() % 10) { stepAtRandom() }
        }
        while !world.queue.isEmpty { stepAtRandom() }
        for (client, node) in [(ClientID(1), "a"), (ClientID(2), "b"), (ClientID(3), "a")] {
            let received = ordered(world, client, on: node, from: marks[node]!)
            #expect(isIncreasing(received), "client \(client): \(received)")
            #expect(received.filter { $0.hasPrefix("ack:") }.count == 20)
            #expect(received.filter { $0.hasPrefix("msg:") }.count == 40)
        }
    }

    /// A re-join of the room while a message is on its way: the ack waits in the catch-up, after
    /// the re-join's own `joined` (the room's latest seq then) and before what came later.
    @Test func ackOfAMessageBehindARejoinComesInItsPlace() throws {
        let world = try twoNodes()
        let mark = world.nodes["a"]!.actions.count
        world.say("on its way", from: 1, on: "a", id: "w1")
        world.send(.join(room: "lobby"), from: 1, on: "a")
        world.say("later", from: 2, on: "b", id: "b1")
        world.settle()
        let received = ordered(world, 1, on: "a", from: mark)
        #expect(isIncreasing(received), "\(received)")
        #expect(received.map { $0.split(separator: ":")[0] } == ["joined", "ack", "msg"], "\(received)")
    }

    /// Acks waiting for their place count against the bound of appends waiting for Redis: with
    /// the room's feed stalled on alice's node and room for 3, her fourth message is refused
    /// `unavailable` (sent again later); once the feed moves the 3 acks go out in order.
    @Test func heldAcksAreBounded() throws {
        let world = SharedLogWorld()
        var configuration = ChatServerConfiguration()
        configuration.pendingAppendLimit = 3
        configuration.floodBurst = 1_000
        try world.node("a", configuration: configuration)
        world.login(1, nick: "alice", on: "a")
        let mark = world.nodes["a"]!.actions.count
        for index in 0..<3 { world.say("m\(index)", from: 1, on: "a", id: "m\(index)") }
        world.settle(where: isReply(to: "a"))
        #expect(world.nodes["a"]!.state.pendingRoomAppends == 0)
        world.say("m3", from: 1, on: "a", id: "m3")
        let answers = { Outbox(Array(world.nodes["a"]!.actions[mark...])).chat(to: 1).map { "\($0.type):\($0.id ?? "")" } }
        #expect(answers() == ["error:m3"])
        world.settle()
        #expect(answers() == ["error:m3", "ack:m0", "ack:m1", "ack:m2"])
    }

    /// A connection the core closes while its message waits: its ack would come after an event
    /// of the room it never got (bob's, on its way), so it does not go out; the close does. The
    /// client sends the message again after reconnecting and the dedupe answers its seq.
    @Test func closingConnectionGetsNoAckPastAGap() throws {
        let world = try twoNodes()
        let mark = world.nodes["a"]!.actions.count
        world.say("from bob", from: 2, on: "b", id: "b1")
        world.say("last words", from: 1, on: "a", id: "k1")
        world.take(world.nodes["a"]!.state.received(.fatal(.invalidUTF8), from: 1, on: .chat, now: world.now), on: "a")
        world.settle(where: isReply(to: "a"))
        world.settle()
        let after = Outbox(Array(world.nodes["a"]!.actions[mark...]))
        #expect(!after.chat(to: 1).contains { $0.type == "ack" }, "\(after.chat(to: 1).map(\.type))")
        #expect(after.closes.map(\.client) == [1])
    }
}

/// A small deterministic sequence for choosing steps.
private struct SplitMixSequence {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
