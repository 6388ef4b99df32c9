import ChatProtocol
@testable import ChatServerCore
import Testing

/// The core with a shared room log (`--cluster`; one server's local store answers the same inputs): room events are
/// appended by actions, acknowledged when stored and shown when the log delivers them back, on
/// every node in one seq order.
@Suite struct SharedLogTests {
    private func twoNodes() throws -> SharedLogWorld {
        let world = SharedLogWorld()
        try world.node("a")
        try world.node("b")
        return world
    }

    private func types(_ messages: [ChatMessage]) -> [String] { messages.map(\.type) }

    /// A message is acknowledged with the log's seq and reaches members on both nodes once, with
    /// that seq; its sender does not get it back.
    @Test func messageCrossesNodesWithOneSeq() throws {
        let world = try twoNodes()
        world.login(1, nick: "alice", on: "a")
        world.login(2, nick: "bob", on: "b")
        world.login(3, nick: "carol", on: "a")
        let before = (world.nodes["a"]!.actions.count, world.nodes["b"]!.actions.count)
        let immediate = world.say("hello", from: 1, on: "a", id: "m1")
        #expect(immediate.chat(to: 1).isEmpty, "no ack before the log stored it")
        world.settle()
        let a = Outbox(Array(world.nodes["a"]!.actions[before.0...]))
        let b = Outbox(Array(world.nodes["b"]!.actions[before.1...]))
        let ack = try #require(a.chat(to: 1).first)
        #expect(ack.type == "ack" && ack.id == "m1")
        let seq = try #require(ack.seq)
        #expect(b.chat(to: 2).map { [$0.type, $0.text, $0.seq.map(String.init)] } == [["msg", "hello", String(seq)]])
        #expect(a.chat(to: 3).map(\.seq) == [seq])
        #expect(a.chat(to: 1).count == 1, "the sender gets its ack only")
    }

    /// Messages from two nodes into one room: every member everywhere sees the same seqs in the
    /// same order, whichever of reply and publish reaches a node first.
    @Test(arguments: [false, true]) func oneOrderAcrossNodes(publishFirst: Bool) throws {
        let world = try twoNodes()
        world.publishBeforeReply = publishFirst
        world.login(1, nick: "alice", on: "a")
        world.login(2, nick: "bob", on: "b")
        world.login(3, nick: "carol", on: "b")
        let marks = world.nodes.mapValues { $0.actions.count }
        for round in 0..<10 {
            world.say("a\(round)", from: 1, on: "a")
            world.say("b\(round)", from: 2, on: "b")
            if round % 3 == 0 { world.settle() }
        }
        world.settle()
        func received(_ client: ClientID, on node: String) -> [Int64] {
            Outbox(Array(world.nodes[node]!.actions[marks[node]!...])).chat(to: client).filter { $0.type == "msg" }.compactMap(\.seq)
        }
        let all = received(3, on: "b")
        #expect(all == Array(1...20).map { Int64($0) + 3 }, "carol: all 20, in seq order (3 joins came first)")
        for (client, node) in [(ClientID(1), "a"), (ClientID(2), "b")] {
            let seqs = received(client, on: node)
            #expect(seqs.count == 10 && seqs == seqs.sorted() && Set(seqs).isSubset(of: all))
        }
    }

    /// A joiner gets the replay before its seq, then its own `joined`, then what came after, in
    /// seq order, even when the room's events are published while it catches up.
    @Test(arguments: [false, true]) func joinerCatchesUpInOrder(publishFirst: Bool) throws {
        let world = try twoNodes()
        world.publishBeforeReply = publishFirst
        world.login(1, nick: "alice", on: "a")
        for index in 0..<5 { world.say("old \(index)", from: 1, on: "a") }
        world.settle()
        world.connect(2, on: "b")
        world.send(.join(nick: "bob", peer: SharedLogWorld.peer(2), room: "lobby"), from: 2, on: "b")
        // Others speak while bob's join is on its way: the replies and deliveries interleave.
        world.step()
        world.say("during", from: 1, on: "a")
        world.settle()
        world.say("after", from: 1, on: "a")
        world.settle()
        let seen = world.nodes["b"]!.chat(to: 2).filter { $0.room == "lobby" }
        let seqs = seen.compactMap(\.seq)
        #expect(seqs == seqs.sorted(), "\(seen.map { "\($0.type):\($0.seq ?? -1)" })")
        #expect(Set(seqs).count == seqs.count, "nothing twice")
        let ownJoined = try #require(seen.firstIndex { $0.type == "joined" && $0.sender == "bob" })
        #expect(seen[..<ownJoined].allSatisfy { $0.replay == true })
        #expect(seen[(ownJoined + 1)...].allSatisfy { $0.replay == nil })
        #expect(seen.filter { $0.type == "msg" }.map(\.text).suffix(2) == ["during", "after"])
        #expect(seen.contains { $0.text == "old 4" && $0.replay == true })
    }

    /// Messages sent right behind a `join` wait for it, then are stored after its `joined`.
    @Test func messagesBehindAJoinWait() throws {
        let world = try twoNodes()
        world.login(1, nick: "alice", on: "a")
        world.send(.join(room: "dev"), from: 1, on: "a")
        let early = world.say("first in dev", from: 1, on: "a", in: "dev", id: "d1")
        #expect(early.errorCodes(to: 1).isEmpty, "held, not refused as not-joined")
        world.settle()
        let dev = world.log["dev"] ?? []
        #expect(dev.map(\.kind) == [.joined, .msg])
        #expect(world.nodes["a"]!.chat(to: 1).contains { $0.type == "ack" && $0.id == "d1" && $0.seq == 2 })
    }

    /// The log down: `msg` and `join` get `error unavailable` with their ids (the `msg`'s says
    /// `stored: false`: nothing reached the log); the connection stays and the same id sent again
    /// once the log is back is stored once.
    @Test func unavailableThenResent() throws {
        let world = try twoNodes()
        world.login(1, nick: "alice", on: "a")
        world.login(2, nick: "bob", on: "b")
        world.unavailable = true
        world.say("lost?", from: 1, on: "a", id: "x1")
        world.send(ChatMessage(.join, room: "elsewhere", id: "j1"), from: 1, on: "a")
        world.settle()
        let errors = world.nodes["a"]!.chat(to: 1).filter { $0.type == "error" }
        #expect(errors.map { [$0.code, $0.id] } == [["unavailable", "x1"], ["unavailable", "j1"]])
        #expect(errors.first?.stored == false)
        #expect(world.nodes["a"]!.outbox.closes.isEmpty)
        world.unavailable = false
        world.say("lost?", from: 1, on: "a", id: "x1")
        world.settle()
        #expect(world.nodes["b"]!.chat(to: 2).filter { $0.text == "lost?" }.count == 1)
    }

    /// A node of several stopping (SIGTERM) hands its clients over (issue 26, item 4): each is
    /// closed with SHUTDOWN, and nothing is stored or released: no `left` for the others, the
    /// nick and device leases kept for the same device to take again through another node.
    @Test func shutdownOfANodeHandsItsClientsOver() throws {
        let world = try twoNodes()
        world.login(1, nick: "alice", on: "a")
        world.login(2, nick: "bob", on: "b")
        world.settle()
        let before = world.log["lobby"]?.count ?? 0
        let out = world.take(world.nodes["a"]!.state.shutdown(now: 1, handsOverClients: true), on: "a")
        world.settle()
        #expect(out.closes.map(\.code) == [.shutdown])
        #expect(world.log["lobby"]?.count == before)
        #expect(!out.actions.contains { if case .releaseIdentity = $0 { true } else { false } })
        #expect(!out.actions.contains { if case .appendRoomEvent = $0 { true } else { false } })
        #expect(world.nodes["b"]!.chat(to: 2).filter { $0.type == "left" }.isEmpty)
    }

    /// A reply lost after the log stored the message: the client is told `unavailable` (without
    /// `stored`: it may have been), resends the same id, gets the first seq back, and nobody sees
    /// the message twice.
    @Test func lostReplyIsDeduplicated() throws {
        let world = try twoNodes()
        world.login(1, nick: "alice", on: "a")
        world.login(2, nick: "bob", on: "b")
        world.storedButLost = true
        world.say("once", from: 1, on: "a", id: "dup")
        world.settle()
        let uncertain = world.nodes["a"]!.chat(to: 1).filter { $0.type == "error" && $0.id == "dup" }
        #expect(uncertain.map(\.code) == ["unavailable"] && uncertain.first?.stored == nil)
        world.storedButLost = false
        world.say("once", from: 1, on: "a", id: "dup")
        world.settle()
        let acks = world.nodes["a"]!.chat(to: 1).filter { $0.type == "ack" && $0.id == "dup" }
        #expect(acks.count == 1)
        let stored = try #require(world.log["lobby"]?.first { $0.kind == .msg })
        #expect(acks.first?.seq == stored.seq)
        #expect(world.nodes["b"]!.chat(to: 2).filter { $0.text == "once" }.count == 1)
    }

    /// `part`: the leaver gets its own `left` with its seq and is out; while the log is down it is
    /// told `unavailable` and stays in.
    @Test func partWaitsForItsLeft() throws {
        let world = try twoNodes()
        world.login(1, nick: "alice", on: "a")
        world.login(2, nick: "bob", on: "b")
        world.unavailable = true
        world.send(ChatMessage(.part, room: "lobby", id: "p1"), from: 1, on: "a")
        world.settle()
        #expect(world.nodes["a"]!.chat(to: 1).last.map { [$0.type, $0.code] } == ["error", "unavailable"])
        world.unavailable = false
        world.say("still here", from: 1, on: "a")
        world.send(.part(room: "lobby"), from: 1, on: "a")
        world.settle()
        let own = world.nodes["a"]!.chat(to: 1)
        #expect(own.contains { $0.type == "ack" })
        #expect(own.last?.type == "left" && own.last?.seq != nil)
        #expect(world.nodes["b"]!.chat(to: 2).last.map { [$0.type, $0.sender] } == ["left", "alice"])
        world.say("gone", from: 1, on: "a", id: "g")
        // A message that would be refused asks the store for its id's receipt first (a resend is acknowledged).
        world.settle()
        #expect(world.nodes["a"]!.chat(to: 1).last?.code == "not-joined")
    }

    /// `history` is read from the log, oldest first, marked replay, then `history-end`.
    @Test func historyComesFromTheLog() throws {
        let world = try twoNodes()
        world.login(1, nick: "alice", on: "a")
        for index in 0..<6 { world.say("m\(index)", from: 1, on: "a") }
        world.settle()
        world.login(2, nick: "bob", on: "b")
        let mark = world.nodes["b"]!.actions.count
        world.send(.history(room: "lobby", before: 6, limit: 3), from: 2, on: "b")
        world.settle()
        let answer = Outbox(Array(world.nodes["b"]!.actions[mark...])).chat(to: 2)
        #expect(answer.map(\.seq) == [3, 4, 5, nil])
        #expect(answer.dropLast().allSatisfy { $0.replay == true })
        #expect(answer.last?.type == "history-end")
    }

    /// A `join` of a room the client is in: the replay after `since`, its own `joined` with the
    /// latest seq, and nothing stored.
    @Test func rejoinResynchronisesWithoutStoring() throws {
        let world = try twoNodes()
        world.login(1, nick: "alice", on: "a")
        for index in 0..<4 { world.say("m\(index)", from: 1, on: "a") }
        world.settle()
        let stored = world.log["lobby"]!.count
        let mark = world.nodes["a"]!.actions.count
        world.send(.join(room: "lobby", since: 2), from: 1, on: "a")
        world.settle()
        let answer = Outbox(Array(world.nodes["a"]!.actions[mark...])).chat(to: 1)
        #expect(answer.map(\.type) == ["msg", "msg", "msg", "joined"])
        #expect(answer.map(\.seq) == [3, 4, 5, 5])
        #expect(world.log["lobby"]!.count == stored)
    }

    /// The node follows a room while it has members there and stops when the last one leaves;
    /// a later join follows it again from its own seq.
    @Test func roomsAreFollowedWhileTheyHaveMembers() throws {
        let world = try twoNodes()
        world.login(1, nick: "alice", on: "a")
        #expect(world.nodes["a"]!.follows["lobby"] != nil)
        world.disconnect(1, on: "a")
        world.settle()
        #expect(world.nodes["a"]!.follows["lobby"] == nil)
        world.login(2, nick: "bob", on: "b")
        world.say("while a had nobody", from: 2, on: "b")
        world.settle()
        world.login(3, nick: "carol", on: "a")
        let seen = world.nodes["a"]!.chat(to: 3)
        #expect(seen.contains { $0.text == "while a had nobody" && $0.replay == true })
        world.say("live", from: 2, on: "b")
        world.settle()
        #expect(world.nodes["a"]!.chat(to: 3).last?.text == "live")
    }

    /// A departure's `left` reaches the other node's members.
    @Test func departureIsSeenEverywhere() throws {
        let world = try twoNodes()
        world.login(1, nick: "alice", on: "a")
        world.login(2, nick: "bob", on: "b")
        world.disconnect(1, on: "a")
        world.settle()
        #expect(world.nodes["b"]!.chat(to: 2).last.map { [$0.type, $0.sender, $0.text] } == ["left", "alice", "quit"])
    }

    /// More live events arrive while a joiner catches up than are held for it: they are read
    /// again from the log, and it still gets everything once, in order.
    @Test func heldEventsOverflowAreReadAgain() throws {
        let world = SharedLogWorld()
        var unlimited = ChatServerConfiguration()
        unlimited.floodBurst = 1_000_000
        try world.node("a", configuration: unlimited)
        try world.node("b")
        world.login(1, nick: "alice", on: "a")
        world.connect(2, on: "b")
        world.send(.join(nick: "bob", peer: SharedLogWorld.peer(2), room: "lobby"), from: 2, on: "b")
        // bob's joined is stored; his replay read waits while 1,100 messages go out.
        world.settle { if case .read = $0 { false } else { true } }
        for index in 0..<1_100 { world.say("burst \(index)", from: 1, on: "a") }
        world.settle { if case .read = $0 { false } else { true } }
        world.settle()
        let bursts = world.nodes["b"]!.chat(to: 2).filter { $0.text.hasPrefix("burst") }
        #expect(bursts.count == 1_100)
        #expect(bursts.map(\.text) == (0..<1_100).map { "burst \($0)" })
        #expect(bursts.allSatisfy { $0.replay == nil })
    }

    /// A member banned from a room (here by the operator console) gets `banned` and is out of the
    /// room once the event is delivered, not before.
    @Test func banRemovesTheTargetWhenDelivered() throws {
        let world = SharedLogWorld()
        try world.node("a")
        world.login(1, nick: "alice", on: "a")
        world.login(2, nick: "bob", on: "a")
        world.absorb(world.nodes["a"]!.state.operatorBan("bob", room: "lobby", reason: "spam", now: world.now), on: "a")
        world.settle()
        #expect(world.nodes["a"]!.chat(to: 2).last.map { [$0.type, $0.to] } == ["banned", "bob"])
        #expect(world.nodes["a"]!.chat(to: 1).last?.type == "banned")
        world.say("after", from: 2, on: "a")
        // A message that would be refused asks the store for its id's receipt first (a resend is acknowledged).
        world.settle()
        #expect(world.nodes["a"]!.chat(to: 2).last?.code == "not-joined")
    }

    private func roster(_ world: SharedLogWorld, of client: ClientID, on node: String) -> [String]? {
        world.nodes[node]!.outbox.presence(to: client).last { $0.type == "roster" }?.members
    }

    /// Rosters list the members of every node, kept up to date by the events of the room:
    /// joins, departures and renames on other nodes.
    @Test func rostersListEveryNode() throws {
        let world = try twoNodes()
        world.login(1, nick: "alice", on: "a")
        world.login(2, nick: "bob", on: "b")
        #expect(roster(world, of: 2, on: "b") == ["alice", "bob"])
        world.login(3, nick: "carol", on: "a")
        world.send(ChatMessage(.nick, text: "alicia"), from: 1, on: "a")
        world.settle()
        world.login(4, nick: "dave", on: "b")
        #expect(roster(world, of: 4, on: "b") == ["alicia", "bob", "carol", "dave"])
        world.disconnect(3, on: "a")
        world.settle()
        world.login(5, nick: "erin", on: "b")
        #expect(roster(world, of: 5, on: "b") == ["alicia", "bob", "dave", "erin"])
        #expect(roster(world, of: 3, on: "a") == ["alice", "bob", "carol"], "carol saw bob of node b too")
    }

    /// Presence across nodes: a user of another node whom a member now shares a room with shows
    /// its status; one that disconnects is `offline` to those who share no room with it any more.
    @Test func presenceCrossesNodes() throws {
        let world = try twoNodes()
        world.login(1, nick: "alice", on: "a")
        world.login(2, nick: "bob", on: "b")
        #expect(world.nodes["a"]!.outbox.presence(to: 1).contains { $0.type == "status" && $0.sender == "bob" && $0.text == "online" })
        world.disconnect(2, on: "b")
        world.settle()
        #expect(world.nodes["a"]!.outbox.presence(to: 1).last.map { [$0.type, $0.sender, $0.text] } == ["status", "bob", "offline"])
    }

    /// Nicks are unique across nodes: a second `alice` through another node is `alice_2`, a
    /// rename to a nick another node holds is `nick-in-use`, and a nick is free again once its
    /// holder left.
    @Test func nicksAreUniqueAcrossNodes() throws {
        let world = try twoNodes()
        world.login(1, nick: "alice", on: "a")
        world.login(2, nick: "alice", on: "b")
        #expect(world.nodes["b"]!.chat(to: 2).first { $0.type == "welcome" }?.sender == "alice_2")
        world.send(ChatMessage(.nick, text: "ALICE", id: "n1"), from: 2, on: "b")
        world.settle()
        #expect(world.nodes["b"]!.chat(to: 2).last.map { [$0.type, $0.code, $0.id] } == ["error", "nick-in-use", "n1"])
        world.disconnect(1, on: "a")
        world.settle()
        world.send(ChatMessage(.nick, text: "alice"), from: 2, on: "b")
        world.settle()
        #expect(world.nodes["b"]!.chat(to: 2).last.map { [$0.type, $0.sender, $0.text] } == ["nick", "alice_2", "alice"])
    }

    /// A `dm` to a user of another node goes through that node's inbox: the recipient gets it
    /// with its own nick in `to`, the sender its `ack`; an unknown nick is `no-such-user`.
    @Test func directMessagesCrossNodes() throws {
        let world = try twoNodes()
        world.login(1, nick: "alice", on: "a")
        world.login(2, nick: "bob", on: "b")
        world.send(ChatMessage(type: "dm", text: "psst", id: "d1", to: "BOB"), from: 1, on: "a")
        world.settle()
        #expect(world.nodes["b"]!.chat(to: 2).last.map { [$0.type, $0.text, $0.sender, $0.to] } == ["dm", "psst", "alice", "bob"])
        #expect(world.nodes["a"]!.chat(to: 1).last.map { [$0.type, $0.id] } == ["ack", "d1"])
        world.send(ChatMessage(type: "dm", text: "?", id: "d2", to: "nobody"), from: 1, on: "a")
        world.settle()
        #expect(world.nodes["a"]!.chat(to: 1).last.map { [$0.type, $0.code] } == ["error", "no-such-user"])
    }

    /// A `dm` resent through another node (the sender moved before its ack arrived) is acknowledged
    /// again with its first stamp and delivered nowhere a second time, for a recipient on the first
    /// node as for one on another; with the store unreachable the lookup answers `unavailable`, and
    /// the resend after it is delivered once.
    @Test func directMessageResentThroughAnotherNodeIsNotDeliveredTwice() throws {
        let world = try twoNodes()
        world.login(1, nick: "alice", on: "a")
        world.login(2, nick: "bob", on: "b")
        world.login(3, nick: "carol", on: "a")
        world.send(ChatMessage(type: "dm", text: "to bob", id: "d1", to: "bob"), from: 1, on: "a")
        world.send(ChatMessage(type: "dm", text: "to carol", id: "d2", to: "carol"), from: 1, on: "a")
        world.settle()
        // (A dm to another node's user is acknowledged once its inbox has it: the two acks may cross.)
        func stamps(_ node: String, _ client: ClientID) -> [String: Int64] {
            Dictionary(world.nodes[node]!.chat(to: client).filter { $0.type == "ack" }.map { ($0.id ?? "", $0.ts ?? 0) }) { $1 }
        }
        let firstAcks = stamps("a", 1)
        #expect(firstAcks.keys.sorted() == ["d1", "d2"])
        // alice's device comes back through node b, and sends both again.
        world.connect(4, on: "b")
        world.send(.join(nick: "alice", peer: SharedLogWorld.peer(1), room: "lobby"), from: 4, on: "b")
        world.settle()
        world.send(ChatMessage(type: "dm", text: "to bob", id: "d1", to: "bob"), from: 4, on: "b")
        world.send(ChatMessage(type: "dm", text: "to carol", id: "d2", to: "carol"), from: 4, on: "b")
        world.settle()
        #expect(stamps("b", 4) == firstAcks)
        #expect(world.nodes["b"]!.chat(to: 2).filter { $0.type == "dm" }.map(\.text) == ["to bob"])
        #expect(world.nodes["a"]!.chat(to: 3).filter { $0.type == "dm" }.map(\.text) == ["to carol"])

        world.unavailable = true
        world.send(ChatMessage(type: "dm", text: "later", id: "d3", to: "bob"), from: 4, on: "b")
        world.settle()
        #expect(world.nodes["b"]!.chat(to: 4).last.map { [$0.type, $0.code, $0.id] } == ["error", "unavailable", "d3"])
        world.unavailable = false
        world.send(ChatMessage(type: "dm", text: "later", id: "d3", to: "bob"), from: 4, on: "b")
        world.settle()
        #expect(world.nodes["b"]!.chat(to: 4).last.map { [$0.type, $0.id] } == ["ack", "d3"])
        #expect(world.nodes["b"]!.chat(to: 2).filter { $0.type == "dm" }.map(\.text) == ["to bob", "later"])
    }

    /// The same device through another node: the old connection is closed with REPLACED, the new
    /// one keeps the nick, and joining its room again there stores nothing (nobody sees it leave
    /// or join); a room it does not join again there is left after the grace.
    @Test func replacedThroughAnotherNode() throws {
        let world = try twoNodes()
        world.login(1, nick: "alice", on: "a")
        world.send(.join(room: "dev"), from: 1, on: "a")
        world.login(3, nick: "bob", on: "a")
        world.settle()
        let stored = (world.log["lobby"]!.count, world.log["dev"]!.count)
        world.connect(2, on: "b")
        world.send(.join(nick: "someone", peer: SharedLogWorld.peer(1), room: "lobby"), from: 2, on: "b")
        world.settle()
        #expect(world.nodes["b"]!.chat(to: 2).first { $0.type == "welcome" }?.sender == "alice")
        #expect(world.nodes["a"]!.outbox.closes.map(\.code) == [.replaced])
        #expect(world.log["lobby"]!.count == stored.0, "no left, no joined in lobby")
        #expect(world.nodes["b"]!.chat(to: 2).contains { $0.type == "joined" && $0.sender == "alice" })
        #expect(!world.nodes["a"]!.chat(to: 3).contains { $0.sender == "alice" && ($0.type == "left" || $0.type == "joined") && $0.seq! > 2 })
        world.now += SharedLogWorld.graceMilliseconds
        world.absorb(world.nodes["a"]!.state.tick(now: world.now), on: "a")
        world.settle()
        #expect(world.log["lobby"]!.count == stored.0, "lobby was joined again")
        #expect(world.log["dev"]!.count == stored.1 + 1 && world.log["dev"]!.last?.kind == .left, "dev was not: left")
    }

    /// A lost node's users leave their rooms with `node-lost`, seen on the other nodes; one that
    /// reconnected elsewhere meanwhile stays.
    @Test func lostNodeIsReaped() throws {
        let world = try twoNodes()
        world.login(1, nick: "alice", on: "a")
        world.login(2, nick: "bob", on: "b")
        world.login(3, nick: "carol", on: "a")
        // carol's device moved to node b before node a was found lost.
        world.connect(4, on: "b")
        world.send(.join(nick: "carol", peer: SharedLogWorld.peer(3), room: "lobby"), from: 4, on: "b")
        world.settle()
        let held = world.members["lobby"]!.values.filter { $0.node == "a" }.map(\.record)
        world.absorb(world.nodes["b"]!.state.reapLostMembers(of: "a", in: "lobby", members: held, now: world.now), on: "b")
        world.settle()
        let lefts = world.nodes["b"]!.chat(to: 2).filter { $0.type == "left" }
        #expect(lefts.map { [$0.sender, $0.text] } == [["alice", "node-lost"]])
        #expect(roster(world, of: 2, on: "b") != nil)
        world.login(5, nick: "dave", on: "b")
        #expect(roster(world, of: 5, on: "b") == ["bob", "carol", "dave"])
    }

    /// A status change reaches room mates on other nodes.
    @Test func statusCrossesNodes() throws {
        let world = try twoNodes()
        world.login(1, nick: "alice", on: "a")
        world.login(2, nick: "bob", on: "b")
        world.send(.status("away"), from: 1, on: "a", stream: .presence)
        world.settle()
        #expect(world.nodes["b"]!.outbox.presence(to: 2).last.map { [$0.type, $0.sender, $0.text] } == ["status", "alice", "away"])
        world.login(3, nick: "carol", on: "b")
        #expect(world.nodes["b"]!.outbox.presence(to: 3).contains { $0.type == "status" && $0.sender == "alice" && $0.text == "away" })
    }

    /// A room's settings are shared: a topic set through one node is stored with its event, shown
    /// on the other, and in the roster of a later joiner there (read with the room's members).
    @Test func settingsAreShared() throws {
        let world = try twoNodes()
        world.login(1, nick: "alice", on: "a")
        world.login(2, nick: "bob", on: "b")
        world.send(ChatMessage(.topic, text: "clusters today", room: "lobby"), from: 1, on: "a")
        world.settle()
        #expect(world.nodes["b"]!.chat(to: 2).last.map { [$0.type, $0.text] } == ["topic", "clusters today"])
        #expect(world.settings["lobby"]?.topic?.text == "clusters today")
        world.login(3, nick: "carol", on: "b")
        #expect(world.nodes["b"]!.outbox.presence(to: 3).last { $0.type == "roster" }?.topic == "clusters today")
        // A node that did not follow the room reads its settings with its first member there.
        world.disconnect(1, on: "a")
        world.settle()
        world.login(4, nick: "dave", on: "a")
        #expect(world.nodes["a"]!.outbox.presence(to: 4).last { $0.type == "roster" }?.topic == "clusters today")
    }

    /// Accounts are shared: one registered through one node is a reserved nick on the other, a
    /// login there works with its password, and a ban of the account in a room claimed through
    /// one node takes its member of the other node out, and keeps it out.
    @Test func accountsAndBansCrossNodes() throws {
        let world = SharedLogWorld()
        var configuration = ChatServerConfiguration()
        configuration.lobbyClaimable = true
        try world.node("a", configuration: configuration)
        try world.node("b", configuration: configuration)
        world.login(1, nick: "alice", on: "a")
        world.send(.register(password: "correct horse"), from: 1, on: "a")
        world.settle()
        #expect(world.nodes["a"]!.chat(to: 1).last.map { [$0.type, $0.text] } == ["account", "registered"])
        world.login(2, nick: "bob", on: "b")
        world.send(.register(password: "battery staple"), from: 2, on: "b")
        world.settle()
        world.login(3, nick: "alice", on: "b")
        #expect(world.nodes["b"]!.chat(to: 3).first { $0.type == "welcome" }?.sender == "alice_2", "a registered nick is reserved")
        world.send(.login(account: "alice", password: "wrong password"), from: 3, on: "b")
        world.settle()
        #expect(world.nodes["b"]!.chat(to: 3).last?.code == "bad-login")
        world.send(.login(account: "alice", password: "correct horse"), from: 3, on: "b")
        world.settle()
        #expect(world.nodes["b"]!.chat(to: 3).contains { $0.type == "account" && $0.text == "logged-in" && $0.account == "alice" })

        world.send(.claim(room: "lobby"), from: 1, on: "a")
        world.settle()
        world.send(.ban(room: "lobby", target: "bob", reason: "spam"), from: 1, on: "a")
        world.settle()
        #expect(world.nodes["b"]!.chat(to: 2).last.map { [$0.type, $0.to] } == ["banned", "bob"])
        world.say("still here?", from: 2, on: "b")
        // A message that would be refused asks the store for its id's receipt first (a resend is acknowledged).
        world.settle()
        #expect(world.nodes["b"]!.chat(to: 2).last?.code == "not-joined")
        world.send(.join(room: "lobby"), from: 2, on: "b")
        world.settle()
        #expect(world.nodes["b"]!.chat(to: 2).last?.code == "banned")
    }

    /// The owner of an invite-only room on one node invites a guest of the other node who shares
    /// no room with it: the guest is found by its nick's lease, told through its node, and let in
    /// (by device); another guest of that node is still refused.
    @Test func guestOfAnotherNodeIsInvited() throws {
        let world = try twoNodes()
        world.login(1, nick: "owner", room: "club", on: "a")
        world.send(.register(password: "correct horse"), from: 1, on: "a")
        world.settle()
        world.send(.claim(room: "club"), from: 1, on: "a")
        world.send(.mode(room: "club", "+invite"), from: 1, on: "a")
        world.settle()
        world.login(2, nick: "friend", on: "b")
        world.login(3, nick: "stranger", on: "b")
        world.send(.invite(room: "club", nick: "friend"), from: 1, on: "a")
        world.settle()
        #expect(world.nodes["a"]!.chat(to: 1).last.map { [$0.type, $0.to] } == ["invite", "friend"])
        #expect(world.nodes["b"]!.chat(to: 2).last.map { [$0.type, $0.sender, $0.room] } == ["invite", "owner", "club"])
        world.send(.join(room: "club"), from: 2, on: "b")
        world.send(.join(room: "club"), from: 3, on: "b")
        world.settle()
        #expect(world.nodes["b"]!.chat(to: 2).contains { $0.type == "joined" && $0.sender == "friend" && $0.room == "club" })
        #expect(world.nodes["b"]!.chat(to: 3).last?.code == "not-invited")
        world.send(.invite(room: "club", nick: "nobody"), from: 1, on: "a")
        world.settle()
        #expect(world.nodes["a"]!.chat(to: 1).last?.code == "no-such-user")
    }

    /// Wrong passwords count on every node: five spread over two nodes lock the account on both,
    /// the right password included (PROTOCOL.md section 7's limit is the system's, not a node's).
    @Test func wrongPasswordsCountOnEveryNode() throws {
        let world = try twoNodes()
        world.login(1, nick: "alice", on: "a")
        world.send(.register(password: "correct horse"), from: 1, on: "a")
        world.settle()
        var client: ClientID = 10
        func attempt(_ password: String, on node: String) -> String? {
            client += 1
            world.connect(client, on: node)
            world.send(.join(nick: "alice", peer: SharedLogWorld.peer(client), room: "lobby", password: password),
                       from: client, on: node)
            world.settle()
            return world.nodes[node]!.chat(to: client).first { $0.type == "error" || $0.type == "welcome" }.map { $0.code ?? $0.type }
        }
        let codes = (0..<5).map { attempt("wrong horse", on: $0 % 2 == 0 ? "a" : "b") }
        #expect(codes == Array(repeating: "bad-login", count: 5))
        #expect(attempt("correct horse", on: "b") == "bad-login")
        #expect(attempt("correct horse", on: "a") == "bad-login")
    }

    /// Appends waiting for the store are bounded: past `pendingAppendLimit` a message is answered
    /// `unavailable` at once with its id, and nothing more waits in memory.
    @Test func waitingAppendsAreBounded() throws {
        let world = SharedLogWorld()
        var configuration = ChatServerConfiguration()
        configuration.pendingAppendLimit = 3
        configuration.floodBurst = 1_000
        try world.node("a", configuration: configuration)
        world.login(1, nick: "alice", on: "a")
        for index in 0..<5 { world.say("m\(index)", from: 1, on: "a", id: "m\(index)") }
        #expect(world.nodes["a"]!.state.pendingRoomAppends == 3)
        #expect(world.nodes["a"]!.chat(to: 1).filter { $0.code == "unavailable" }.map(\.id) == ["m3", "m4"])
        world.settle()
        #expect(world.nodes["a"]!.chat(to: 1).filter { $0.type == "ack" }.map(\.id) == ["m0", "m1", "m2"])
    }

    /// Typing crosses nodes (published, never stored): a member of the other node gets it as a
    /// datagram, within the sender's typing rate.
    @Test func typingCrossesNodes() throws {
        let world = try twoNodes()
        world.login(1, nick: "alice", on: "a")
        world.login(2, nick: "bob", on: "b")
        world.take(world.nodes["a"]!.state.receivedDatagram(ChatMessage.typing(room: "lobby", isTyping: true).encodedDatagram(),
                                                             from: 1, now: world.now), on: "a")
        world.settle()
        #expect(world.nodes["b"]!.outbox.datagrams(to: 2).map { [$0.type, $0.sender, $0.text] } == [["typing", "alice", "start"]])
        #expect(world.log["lobby"]!.allSatisfy { $0.kind != .msg }, "nothing stored")
    }

    /// A client the core closes (here: invalid UTF-8, PROTOCOL_ERROR) while its messages wait for
    /// the store still gets their acks, and the close comes after the last.
    @Test func acksGoOutBeforeACloseThatWaited() throws {
        let world = try twoNodes()
        world.login(1, nick: "alice", on: "a")
        world.say("one", from: 1, on: "a", id: "k1")
        world.say("two", from: 1, on: "a", id: "k2")
        let fatal = world.take(world.nodes["a"]!.state.received(.fatal(.invalidUTF8), from: 1, on: .chat, now: world.now), on: "a")
        #expect(fatal.closes.isEmpty, "not before the acks")
        world.settle()
        let actions = world.nodes["a"]!.actions
        let acks = actions.indices.filter { index in
            if case .send(1, .chat, let payload, _) = actions[index] { return Outbox.decode(payload).type == "ack" }
            return false
        }
        let close = actions.lastIndex { if case .close(1, .protocolError, _) = $0 { true } else { false } }
        #expect(acks.count == 2 && close != nil && acks.allSatisfy { $0 < close! })
    }

    /// Re-joins of a room the connection is in, sent together, are each answered (as on one
    /// server, not refused while the first reads its replay).
    @Test func repeatedRejoinsAreEachAnswered() throws {
        let world = try twoNodes()
        world.login(1, nick: "alice", on: "a")
        for index in 0..<3 { world.say("m\(index)", from: 1, on: "a") }
        world.settle()
        let mark = world.nodes["a"]!.actions.count
        for _ in 0..<5 { world.send(.join(room: "lobby"), from: 1, on: "a") }
        world.settle()
        let answer = Outbox(Array(world.nodes["a"]!.actions[mark...]))
        #expect(answer.chat(to: 1).filter { $0.type == "joined" && $0.replay == nil }.count == 5)
        #expect(answer.chat(to: 1).filter { $0.type == "msg" }.count == 15)
        #expect(answer.errorCodes(to: 1).isEmpty)
    }

    /// A user away before its join is shown away on the other node, never `online` first (the
    /// status travels with the `joined`).
    @Test func statusBeforeTheJoinCrossesNodes() throws {
        let world = try twoNodes()
        world.login(2, nick: "bob", on: "b")
        world.connect(1, on: "a")
        world.send(.status("away"), from: 1, on: "a", stream: .presence)
        world.send(.join(nick: "alice", peer: SharedLogWorld.peer(1), room: "lobby"), from: 1, on: "a")
        world.settle()
        #expect(world.nodes["b"]!.outbox.presence(to: 2).filter { $0.type == "status" && $0.sender == "alice" }.map(\.text) == ["away"])
    }

    /// A server operator's kick (here the console) of a user of another node: that node closes it
    /// with KICKED after a `kicked`.
    @Test func serverKickReachesAnotherNode() throws {
        let world = try twoNodes()
        world.login(1, nick: "alice", on: "a")
        world.login(2, nick: "bob", on: "b")
        world.absorb(world.nodes["a"]!.state.kick(nick: "bob", reason: "enough", now: world.now), on: "a")
        world.settle()
        #expect(world.nodes["b"]!.chat(to: 2).last.map { [$0.type, $0.text] } == ["kicked", "enough"])
        #expect(world.nodes["b"]!.outbox.closes.map(\.code) == [.kicked])
        #expect(OperatorNameTests.console(world.nodes["a"]!.actions) == ["kick of bob sent to node b"])
        // A nick no node holds, then the store unreachable: the console is told either way.
        world.absorb(world.nodes["a"]!.state.kick(nick: "nobody", reason: "", now: world.now), on: "a")
        world.settle()
        world.unavailable = true
        world.absorb(world.nodes["a"]!.state.kick(nick: "bob2", reason: "", now: world.now), on: "a")
        world.settle()
        world.unavailable = false
        #expect(OperatorNameTests.console(world.nodes["a"]!.actions).suffix(2)
                == ["no user 'nobody' is connected", "'bob2' could not be looked up (down); try again"])
    }
}
