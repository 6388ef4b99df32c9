import ChatServerCore
@testable import ClusterStore
import EventRuntime
import RedisClient
import Testing

/// A Redis that lost its data, against a scripted Redis: seqs raised above what the node
/// delivered before anything is appended again, the node's connections closed, the join redone.
@Suite struct ClusterNodeEpochTests {
    /// Redis restarts empty while the node is joining (its reap in flight): appends are held from
    /// the disconnect, the new connection finds the epoch gone, the followed rooms' counters are
    /// raised, and the join, whose step the restart failed, starts again and completes.
    @Test func aRedisRestartMidJoin() {
        let harness = NodeHarness()
        harness.followed = [("@inbox:n1", 3), ("lobby", 41)]
        harness.take(harness.node.start())
        harness.take(harness.node.connected(server: "redis:1"))
        harness.answer("SET {meta}:epoch", .null)
        harness.answerEviction()
        harness.answer("EVAL join", .integer(10_000))
        #expect(harness.labels == ["SMEMBERS {node:n1}:rooms"])
        harness.take(harness.node.disconnected(server: "redis:1", error: "connection reset", holdsEpoch: true))
        #expect(!harness.node.epochChecked)
        harness.take(harness.node.connected(server: "redis:1"))
        #expect(harness.labels == ["SMEMBERS {node:n1}:rooms", "SET {meta}:epoch"])
        // The restarted Redis had no epoch: this node's candidate was written.
        harness.answer("SET {meta}:epoch", .null)
        #expect(harness.node.figures.epochChanges == 1)
        #expect(harness.node.epoch == "epoch-n1-2")
        #expect(harness.labels == ["SMEMBERS {node:n1}:rooms", "EVAL raiseSeq {room:@inbox:n1}:seq 1003", "EVAL raiseSeq {room:lobby}:seq 1041"])
        // Not ready yet: nothing to close.
        #expect(!harness.reports.contains(.membershipLost))
        harness.answer("EVAL raiseSeq {room:@inbox:n1}:seq 1003", .integer(0))
        #expect(!harness.node.epochChecked)
        harness.answer("EVAL raiseSeq {room:lobby}:seq 1041", .failure(.unavailable("timeout")))
        #expect(harness.node.epochChecked)
        // The reap's command was lost with the connection.
        harness.answer("SMEMBERS {node:n1}:rooms", .failure(.unavailable("connection lost")))
        #expect(harness.labels.isEmpty)
        #expect(harness.timers == [.heartbeat, .join])
        harness.fire(.join)
        harness.answerEviction()
        for (label, reply) in ClusterNodeJoinTests.joinSteps { harness.answer(label, reply) }
        #expect(harness.node.isReady)
        #expect(harness.reports == [.serverBans([]), .ready])
    }

    /// A Redis emptied in place (FLUSHALL) shows no reconnect: the heartbeat's epoch check finds
    /// it; a ready node closes its connections (the users' leases and memberships went with the
    /// data) and joins again.
    @Test func anEmptiedRedisIsFoundByTheHeartbeat() {
        let harness = NodeHarness()
        harness.joinOnEmptyStore()
        harness.followed = [("lobby", 7)]
        harness.fire(.heartbeat)
        harness.answer("SET {meta}:epoch", .null)
        #expect(harness.reports.last == .membershipLost)
        #expect(!harness.node.isReady)
        #expect(!harness.node.epochChecked)
        #expect(harness.renewing == [true, false])
        #expect(harness.logs.contains("redis lost its data: raising room seqs"))
        harness.answer("EVAL raiseSeq {room:lobby}:seq 1007", .integer(0))
        #expect(harness.node.epochChecked)
        // The scan sent before the check answered finds nothing to do; the join starts over.
        harness.answerEviction()
        harness.answer("EVAL claim", .array([]))
        harness.answer("ZRANGE {nodes}", .array([]))
        #expect(harness.labels == ["INFO memory"])
    }

    /// Another epoch than the one this node saw (a failover to a replica that had another store).
    @Test func aChangedEpochIsALoss() {
        let harness = NodeHarness()
        harness.joinOnEmptyStore()
        harness.fire(.heartbeat)
        harness.answer("SET {meta}:epoch", .text("epoch-someone-else"))
        #expect(harness.reports.last == .membershipLost)
        #expect(harness.node.epoch == "epoch-someone-else")
        #expect(harness.node.epochChecked)  // no rooms followed: nothing to raise
    }

    /// An append found a room's counter below what this node delivered there, without any
    /// reconnect: appends are held at once and the store is recovered although the epoch is the
    /// same; a second loss while the check is in flight is counted, not checked twice.
    @Test func aStoreLossFoundByAnAppendIsRecovered() {
        let harness = NodeHarness()
        harness.joinOnEmptyStore()
        harness.followed = [("lobby", 12)]
        harness.take(harness.node.storeLost(room: "lobby"))
        #expect(!harness.node.epochChecked)
        #expect(harness.labels == ["SET {meta}:epoch"])
        harness.take(harness.node.storeLost(room: "dev"))
        #expect(harness.node.figures.storeLossesFound == 2)
        #expect(harness.labels == ["SET {meta}:epoch"])
        harness.answer("SET {meta}:epoch", .text("epoch-n1-1"))
        #expect(harness.reports.last == .membershipLost)
        #expect(harness.labels == ["EVAL raiseSeq {room:lobby}:seq 1012"])
        harness.answer("EVAL raiseSeq {room:lobby}:seq 1012", .integer(0))
        #expect(harness.node.epochChecked)
        #expect(harness.labels == ["INFO memory"])
    }

    /// A loss reported while a check is in flight is recovered by that check, although the epoch
    /// it reads is the same.
    @Test func aLossDuringACheckIsRecoveredByIt() {
        let harness = NodeHarness()
        harness.joinOnEmptyStore()
        harness.fire(.heartbeat)
        #expect(harness.labels.first == "SET {meta}:epoch")
        harness.take(harness.node.storeLost(room: "lobby"))
        harness.answer("SET {meta}:epoch", .text("epoch-n1-1"))
        #expect(harness.labels.filter { $0 == "SET {meta}:epoch" }.isEmpty)
        // The answer took the pending loss: recovered (nothing followed to raise).
        #expect(harness.reports.last == .membershipLost)
        #expect(harness.node.epochChecked)
    }

    /// On a Redis Cluster, losing another shard's master does not hold appends back; losing the
    /// epoch's does, and a new slot map checks the epoch where it moved.
    @Test func onlyTheEpochsServerHoldsAppendsBack() {
        let harness = NodeHarness(sharded: true)
        harness.joinOnEmptyStore()
        harness.take(harness.node.disconnected(server: "redis:2", error: "reset", holdsEpoch: false))
        #expect(harness.node.epochChecked)
        harness.take(harness.node.slotMapUpdated(masters: 3))
        #expect(harness.labels.isEmpty)
        harness.take(harness.node.disconnected(server: "redis:1", error: "reset", holdsEpoch: true))
        #expect(!harness.node.epochChecked)
        harness.take(harness.node.slotMapUpdated(masters: 3))
        #expect(harness.labels == ["SET {meta}:epoch"])
        harness.take(harness.node.slotMapUpdated(masters: 3))
        #expect(harness.labels == ["SET {meta}:epoch"])
        harness.answer("SET {meta}:epoch", .text("epoch-n1-1"))
        #expect(harness.node.epochChecked)
        #expect(harness.node.isReady)
    }
}
