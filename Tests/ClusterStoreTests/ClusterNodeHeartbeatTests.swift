import ChatServerCore
@testable import ClusterStore
import EventRuntime
import RedisClient
import Testing

/// A ready node's heartbeat, reaping, renewals, name and stop against a scripted Redis.
@Suite struct ClusterNodeHeartbeatTests {
    /// The heartbeat checks the epoch, the eviction policy, claims lost nodes and counts the others.
    @Test func aHeartbeatChecksAndScans() {
        let harness = NodeHarness()
        harness.joinOnEmptyStore()
        harness.fire(.heartbeat)
        #expect(harness.timers == [.heartbeat])
        #expect(harness.labels == ["SET {meta}:epoch", "INFO memory", "EVAL claim", "ZRANGE {nodes}"])
        harness.answer("SET {meta}:epoch", .text("epoch-n1-1"))
        harness.answerEviction()
        harness.answer("EVAL claim", .array([]))
        harness.answer("ZRANGE {nodes}", .texts(["n1", "12000", "n2", "12500", "n3", "11000"]))
        #expect(harness.node.figures.peerNodes == 2)
        #expect(harness.node.epochChecked)
        #expect(harness.reports == [.serverBans([]), .ready])
        #expect(harness.labels.isEmpty)
    }

    /// A lost node is reaped by the node that claimed it: its members in each room it followed
    /// reported (only its own), its leases freed, its records deleted, the claim closed; a claim
    /// of it again meanwhile starts no second reap.
    @Test func aLostNodeIsReapedOnce() {
        let harness = NodeHarness()
        harness.joinOnEmptyStore()
        harness.fire(.heartbeat)
        harness.answer("SET {meta}:epoch", .text("epoch-n1-1"))
        harness.answerEviction()
        harness.answer("EVAL claim", .texts(["n2", "lost", "n1", "lost"]))
        #expect(harness.logs.contains("node lost"))
        // Never itself (its own name comes back only when it was reaped: the renewal says so).
        #expect(harness.labels == ["ZRANGE {nodes}", "SMEMBERS {node:n2}:rooms"])
        harness.answer("ZRANGE {nodes}", .texts(["n1", "12000"]))
        harness.answer("SMEMBERS {node:n2}:rooms", .texts(["lobby", "dev"]))
        #expect(harness.labels == ["EVAL roomState {room:lobby}:seq", "EVAL roomState {room:dev}:seq"])
        harness.answer("EVAL roomState {room:lobby}:seq",
                       .array([.text("40"), .texts(["alice", "n2/d1 online Alice -", "bob", "n1/d2 away Bob bob"]), .array([])]))
        // Another scan claims n2 again (its claim ran out) while it is being reaped: no second reap.
        harness.fire(.heartbeat)
        harness.answer("SET {meta}:epoch", .text("epoch-n1-1"))
        harness.answerEviction()
        harness.answer("EVAL claim", .texts(["n2", "lost"]))
        harness.answer("ZRANGE {nodes}", .texts(["n1", "14000"]))
        #expect(harness.labels == ["EVAL roomState {room:dev}:seq"])
        harness.answer("EVAL roomState {room:dev}:seq", .array([.text("3"), .texts(["carol", "n2/d3 away Carol carol"]), .array([])]))
        let alice = MemberRecord(nick: "Alice", account: nil, status: .online, onThisNode: false, device: "d1")
        let carol = MemberRecord(nick: "Carol", account: "carol", status: .away, onThisNode: false, device: "d3")
        #expect(harness.reports.suffix(2) == [.reap(node: "n2", room: "lobby", [alice]), .reap(node: "n2", room: "dev", [carol])])
        harness.answer("SMEMBERS {node:n2}:holds", .texts(["{nick:alice}", "{peer:d1}", "{nick:carol}", "{peer:d3}"]))
        #expect(harness.labels == ["EVAL releaseAll"])
        harness.answer("EVAL releaseAll", .texts(["{nick:alice}", "{peer:d1}", "{nick:carol}", "{peer:d3}"]))
        harness.answer("DEL {node:n2}:holds", .integer(1))
        #expect(harness.node.figures.nodesReaped == 0)
        harness.answer("DEL {node:n2}:rooms", .integer(1))
        #expect(harness.node.figures.nodesReaped == 1)
        #expect(harness.labels == ["ZREM {nodes}:reaping"])
        #expect(harness.unanswered.first?.command == RedisCommand("ZREM", "{nodes}:reaping", "n2"))
        // Once done, a later claim (another run of n2 that was lost too) is reaped again.
        harness.answer("ZREM {nodes}:reaping", .integer(1))
        harness.fire(.heartbeat)
        harness.answer("SET {meta}:epoch", .text("epoch-n1-1"))
        harness.answerEviction()
        harness.answer("EVAL claim", .texts(["n2", "stopped"]))
        #expect(harness.logs.contains("node stopped"))
        #expect(harness.labels.contains("SMEMBERS {node:n2}:rooms"))
    }

    /// A reap that fails half-way (a room's state unreadable, Redis gone while freeing leases)
    /// closes no claim: the claim runs out and another scan reaps the node again.
    @Test(arguments: ["EVAL roomState {room:lobby}:seq", "SMEMBERS {node:n2}:holds", "EVAL releaseAll", "SMEMBERS {node:n2}:rooms"])
    func aReapThatFailsIsLeftToTheNextScan(failing step: String) {
        let harness = NodeHarness()
        harness.joinOnEmptyStore()
        harness.fire(.heartbeat)
        harness.answer("SET {meta}:epoch", .text("epoch-n1-1"))
        harness.answerEviction()
        harness.answer("ZRANGE {nodes}", .array([]))
        harness.answer("EVAL claim", .texts(["n2", "lost"]))
        let steps: [(String, RedisReply)] = [("SMEMBERS {node:n2}:rooms", .texts(["lobby"])),
                                             ("EVAL roomState {room:lobby}:seq", .array([.text("1"), .array([]), .array([])])),
                                             ("SMEMBERS {node:n2}:holds", .texts(["{nick:alice}"])), ("EVAL releaseAll", .texts(["{nick:alice}"]))]
        for (label, reply) in steps {
            if label == step {
                harness.answer(label, .failure(.unavailable("connection lost")))
                break
            }
            harness.answer(label, reply)
        }
        #expect(harness.labels.isEmpty)
        #expect(harness.node.figures.nodesReaped == 0)
        harness.fire(.heartbeat)
        harness.answer("SET {meta}:epoch", .text("epoch-n1-1"))
        harness.answerEviction()
        harness.answer("EVAL claim", .texts(["n2", "lost"]))
        #expect(harness.labels.contains("SMEMBERS {node:n2}:rooms"))
    }

    /// Leases are freed a thousand a script, one slot per script on a Redis Cluster.
    @Test func leasesAreFreedInBatchesOfOneSlot() {
        let keys = (0..<2500).map { "{nick:user\($0)}" }
        let single = Leases.releaseAllBatches(keys, node: "n2", sharded: false)
        #expect(single.map { $0.command.arguments.count - 4 } == [1000, 1000, 500])
        #expect(single.allSatisfy { $0.command.arguments.last == Array("n2/".utf8) })
        let sharded = Leases.releaseAllBatches(Array(keys.prefix(50)), node: "n2", sharded: true)
        for batch in sharded {
            let batchKeys = batch.command.arguments.dropFirst(3).dropLast().map { String(decoding: $0, as: UTF8.self) }
            #expect(Set(batchKeys.map { RedisKeySlot.slot(of: $0) }).count == 1)
            #expect(batchKeys.first == batch.key)
        }
        #expect(sharded.reduce(0) { $0 + $1.command.arguments.count - 4 } == 50)
    }

    /// A renewal that finds the node reaped (it was cut off too long): the core closes its
    /// connections, renewals stop, and the node joins again.
    @Test func aNodeDeclaredLostJoinsAgain() {
        let harness = NodeHarness()
        harness.joinOnEmptyStore()
        harness.take(harness.node.renewed(.success(.alive(deadline: 20_000)), now: harness.now + .seconds(1)))
        #expect(harness.node.figures.lastRenewal == harness.now + .seconds(1))
        harness.take(harness.node.renewed(.failure(.unavailable("timeout")), now: harness.now))
        #expect(harness.node.figures.renewFailures == 1)
        harness.take(harness.node.renewed(.success(.reaped), now: harness.now))
        #expect(harness.reports.last == .membershipLost)
        #expect(harness.renewing == [true, false])
        #expect(!harness.node.isReady)
        #expect(harness.labels == ["INFO memory"])
        harness.answerEviction()
        for (label, reply) in ClusterNodeJoinTests.joinSteps { harness.answer(label, reply) }
        #expect(harness.node.isReady)
        #expect(harness.renewing == [true, false, true])
        // Renewals' answers while not ready (joining) are not counted.
        harness.take(harness.node.leave())
        harness.take(harness.node.renewed(.success(.reaped), now: harness.now))
        #expect(harness.reports.last == .ready)
    }

    /// A renewal that finds another instance holding the name: the node stops serving for good.
    @Test func aNameTakenByAnotherInstanceStopsTheNode() {
        let harness = NodeHarness()
        harness.joinOnEmptyStore()
        harness.take(harness.node.renewed(.success(.taken(deadline: 30_000, holder: "token-other")), now: harness.now))
        #expect(harness.reports.last == .nameTaken("another instance took this node's name"))
        #expect(harness.node.nameLost)
        #expect(!harness.node.isReady)
        // No heartbeat, scan or join any more.
        harness.fire(.heartbeat)
        #expect(harness.labels.isEmpty)
        #expect(harness.timers.isEmpty)
        harness.take(harness.node.connected(server: "redis:1"))
        harness.answer("SET {meta}:epoch", .text("epoch-n1-1"))
        #expect(harness.labels.isEmpty)
    }

    /// A join that finds the name held: a holder whose deadline moves between two looks is a
    /// running instance (the node stops); a stopping instance's or a reaper's claim is waited out.
    @Test func aHeldNameIsWaitedOutUnlessItsHolderRuns() {
        let harness = NodeHarness()
        harness.take(harness.node.start())
        harness.take(harness.node.connected(server: "redis:1"))
        harness.answer("SET {meta}:epoch", .null)
        harness.answerEviction()
        harness.answer("EVAL join", .array([.integer(-2), .integer(8_000), .text("stopping:token-old")]))
        #expect(harness.logs.last == "node name held; waiting")
        #expect(harness.timers == [.heartbeat, .join])
        harness.fire(.join)
        harness.answerEviction()
        // The handover's deadline does not move; then a reaper claims the name's earlier run.
        harness.answer("EVAL join", .array([.integer(-2), .integer(8_000), .text("stopping:token-old")]))
        harness.fire(.join)
        harness.answerEviction()
        harness.answer("EVAL join", .array([.integer(-2), .integer(9_000), .text("reaping")]))
        harness.fire(.join)
        harness.answerEviction()
        harness.answer("EVAL join", .array([.integer(-2), .integer(9_500), .text("reaping")]))
        #expect(!harness.node.nameLost)
        // A running instance: its deadline moved on between two looks.
        harness.fire(.join)
        harness.answerEviction()
        harness.answer("EVAL join", .array([.integer(-2), .integer(10_000), .text("token-other")]))
        #expect(!harness.node.nameLost)
        harness.fire(.join)
        harness.answerEviction()
        harness.answer("EVAL join", .array([.integer(-2), .integer(12_000), .text("token-other")]))
        #expect(harness.node.nameLost)
        #expect(harness.reports == [.nameTaken("another running instance holds this node's name")])
        #expect(harness.labels.isEmpty)
    }

    /// A planned stop tells the directory, once, and stops the heartbeat; a node that never got
    /// ready has nothing to tell.
    @Test func aPlannedStopTellsTheDirectory() {
        let harness = NodeHarness()
        harness.joinOnEmptyStore()
        harness.take(harness.node.leave())
        #expect(harness.labels == ["EVAL leave"])
        #expect(harness.unanswered.first?.command.arguments.last == Array("6000".utf8))
        #expect(harness.renewing == [true, false])
        #expect(harness.leftCount == 0)
        harness.answer("EVAL leave", .failure(.unavailable("connection lost")))
        #expect(harness.leftCount == 1)
        #expect(harness.logs.last == "could not tell the directory this node stops")
        harness.take(harness.node.leave())
        #expect(harness.leftCount == 2)
        #expect(harness.labels.isEmpty)
        harness.fire(.heartbeat)
        #expect(harness.labels.isEmpty)
        let fresh = NodeHarness()
        fresh.take(fresh.node.leave())
        #expect(fresh.leftCount == 1)
        #expect(fresh.labels.isEmpty)
    }

    /// Another node changed the server bans: they are read again (and a failure waits for the next change).
    @Test func changedServerBansAreReadAgain() {
        let harness = NodeHarness()
        harness.joinOnEmptyStore()
        harness.take(harness.node.serverBansChanged())
        let ban = Ban(label: "eve", account: nil, peer: nil, address: "192.0.2.7", device: "d9", reason: "", by: "op", ts: 9)
        harness.answer("HGETALL {server}:bans", .texts(["eve", PolicyFormat.encode(ban)]))
        #expect(harness.reports.last == .serverBans([ban]))
        harness.take(harness.node.serverBansChanged())
        harness.answer("HGETALL {server}:bans", .failure(.unavailable("timeout")))
        #expect(harness.reports.last == .serverBans([ban]))
        #expect(harness.timers == [.heartbeat])
    }
}
