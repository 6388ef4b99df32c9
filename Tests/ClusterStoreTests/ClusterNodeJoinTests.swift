import ChatServerCore
@testable import ClusterStore
import EventRuntime
import RedisClient
import Testing

/// A node's join against a scripted Redis: each step's command, and what a failed, timed-out or
/// refused step does.
@Suite struct ClusterNodeJoinTests {
    /// epoch → eviction → directory → reap of an earlier run → bans → files → ready, one step at a time.
    @Test func joinsStepByStepThenIsReady() {
        let harness = NodeHarness()
        harness.take(harness.node.start())
        #expect(harness.timers == [.heartbeat])
        #expect(harness.labels.isEmpty)
        harness.take(harness.node.connected(server: "redis:1"))
        #expect(harness.labels == ["SET {meta}:epoch"])
        #expect(!harness.node.epochChecked)
        harness.answer("SET {meta}:epoch", .null)
        #expect(harness.node.epochChecked)
        #expect(harness.node.epoch == "epoch-n1-1")
        #expect(harness.labels == ["INFO memory"])
        harness.answerEviction()
        #expect(harness.labels == ["EVAL join"])
        harness.answer("EVAL join", .integer(10_000))
        #expect(harness.labels == ["SMEMBERS {node:n1}:rooms"])
        harness.answer("SMEMBERS {node:n1}:rooms", .array([]))
        #expect(harness.labels == ["SMEMBERS {node:n1}:holds"])
        harness.answer("SMEMBERS {node:n1}:holds", .array([]))
        #expect(harness.labels == ["DEL {node:n1}:holds"])
        harness.answer("DEL {node:n1}:holds", .integer(0))
        #expect(harness.labels == ["DEL {node:n1}:rooms"])
        harness.answer("DEL {node:n1}:rooms", .integer(0))
        #expect(harness.labels == ["HGETALL {server}:bans"])
        let ban = Ban(label: "mallory", account: "mallory", peer: nil, address: nil, device: nil, reason: "spam", by: "op", ts: 5)
        harness.answer("HGETALL {server}:bans", .texts(["mallory", PolicyFormat.encode(ban)]))
        #expect(harness.reports == [.serverBans([ban])])
        #expect(harness.labels == ["EVAL buildParties"])
        harness.answer("EVAL buildParties", .integer(1))
        #expect(harness.labels == ["EVAL claimFolder"])
        #expect(!harness.node.isReady)
        harness.answer("EVAL claimFolder", .text("mark-1"))
        #expect(harness.node.isReady)
        #expect(harness.reports == [.serverBans([ban]), .ready])
        #expect(harness.renewing == [true])
        #expect(harness.logs.contains("cluster node ready"))
        #expect(harness.labels.isEmpty)
        #expect(harness.node.unanswered == 0)
        #expect(harness.timers == [.heartbeat])
    }

    /// The join's steps after the eviction check, with Redis's answers on an empty store.
    static let joinSteps: [(String, RedisReply)] = [("EVAL join", .integer(10_000)), ("SMEMBERS {node:n1}:rooms", .array([])),
                                                    ("SMEMBERS {node:n1}:holds", .array([])), ("DEL {node:n1}:holds", .integer(0)),
                                                    ("DEL {node:n1}:rooms", .integer(0)), ("HGETALL {server}:bans", .array([])),
                                                    ("EVAL buildParties", .integer(1)), ("EVAL claimFolder", .text("mark-1"))]

    /// An error reply (Redis loading after a restart) or a command that timed out: the join stops
    /// there and starts again from the eviction check a heartbeat interval later.
    @Test(arguments: ["EVAL join", "SMEMBERS {node:n1}:rooms", "SMEMBERS {node:n1}:holds", "HGETALL {server}:bans", "EVAL buildParties",
                      "EVAL claimFolder"])
    func aFailedStepTriesTheJoinAgain(failing step: String) {
        for failure in [RoomStoreError.notStored("LOADING Redis is loading"), .unavailable("no reply within 5 s")] {
            joinFails(at: step, with: .failure(failure))
        }
    }

    /// A reply that is not what the step reads counts as a failure.
    @Test(arguments: ["EVAL join", "SMEMBERS {node:n1}:rooms", "HGETALL {server}:bans"])
    func aReplyThatIsNotOneTriesTheJoinAgain(at step: String) {
        joinFails(at: step, with: .success(.status("OK")))
    }

    private func joinFails(at step: String, with result: Result<RedisReply, RoomStoreError>) {
        let harness = NodeHarness()
        harness.take(harness.node.start())
        harness.take(harness.node.connected(server: "redis:1"))
        harness.answer("SET {meta}:epoch", .null)
        harness.answerEviction()
        for (label, reply) in Self.joinSteps {
            if label == step {
                harness.answer(label, result)
                break
            }
            harness.answer(label, reply)
        }
        #expect(!harness.node.isReady, "\(step) \(result)")
        #expect(harness.labels.isEmpty, "\(step) \(result)")
        #expect(harness.timers == [.heartbeat, .join], "\(step) \(result)")
        #expect(!harness.reports.contains(.ready))
        harness.fire(.join)
        #expect(harness.labels == ["INFO memory"], "\(step) \(result)")
        harness.answerEviction()
        for (label, reply) in Self.joinSteps { harness.answer(label, reply) }
        #expect(harness.node.isReady, "\(step) \(result)")
        #expect(harness.reports.last == .ready)
    }

    /// A Redis that may evict keys keeps the node out (it would hand out seqs twice), loudly, and
    /// it is asked again each interval; once it keeps its keys the node joins.
    @Test func aRedisThatMayEvictKeysKeepsTheNodeOut() {
        let harness = NodeHarness()
        harness.take(harness.node.start())
        harness.take(harness.node.connected(server: "redis:1"))
        harness.answer("SET {meta}:epoch", .null)
        harness.answerEviction("allkeys-lru")
        #expect(harness.labels.isEmpty)
        #expect(harness.timers == [.heartbeat, .join])
        #expect(harness.logs.contains("redis may evict keys: set maxmemory-policy noeviction"))
        #expect(harness.node.figures.unsafeEvictionPolicy == "redis:1 allkeys-lru")
        harness.fire(.join)
        harness.answerEviction("allkeys-lru")
        #expect(harness.logs.filter { $0.hasPrefix("redis may evict") }.count == 1)
        harness.fire(.join)
        harness.answerEviction()
        #expect(harness.node.figures.unsafeEvictionPolicy == nil)
        #expect(harness.logs.contains("redis eviction policy is noeviction"))
        #expect(harness.labels == ["EVAL join"])
    }

    /// A Redis that does not answer INFO (renamed on a managed service) is not held against the node.
    @Test func aRedisThatDoesNotAnswerInfoIsNotHeldAgainstTheNode() {
        let harness = NodeHarness()
        harness.take(harness.node.start())
        harness.take(harness.node.connected(server: "redis:1"))
        harness.answer("SET {meta}:epoch", .null)
        harness.answerEach("INFO memory", [("redis:1", .failure(.rejected("ERR unknown command 'INFO'")))])
        #expect(harness.labels == ["EVAL join"])
    }

    /// Another folder's mark: reported, never ready, not tried again (the app stops).
    @Test func aForeignFilesFolderIsReported() {
        let harness = NodeHarness(mark: "mine")
        harness.take(harness.node.start())
        harness.take(harness.node.connected(server: "redis:1"))
        harness.answer("SET {meta}:epoch", .null)
        harness.answerEviction()
        for (label, reply) in [("EVAL join", RedisReply.integer(10_000)), ("SMEMBERS {node:n1}:rooms", .array([])),
                               ("SMEMBERS {node:n1}:holds", .array([])), ("DEL {node:n1}:holds", .integer(0)),
                               ("DEL {node:n1}:rooms", .integer(0)), ("HGETALL {server}:bans", .array([])),
                               ("EVAL buildParties", .integer(0)), ("EVAL claimFolder", .text("theirs"))] {
            harness.answer(label, reply)
        }
        #expect(harness.reports == [.serverBans([]), .foreignFilesFolder("theirs")])
        #expect(!harness.node.isReady)
        #expect(harness.timers == [.heartbeat])
    }

    /// An earlier run of the node left a user in a room and leases: the join takes them out first.
    @Test func aJoinReapsWhatTheEarlierRunLeft() {
        let harness = NodeHarness()
        harness.take(harness.node.start())
        harness.take(harness.node.connected(server: "redis:1"))
        harness.answer("SET {meta}:epoch", .null)
        harness.answerEviction()
        harness.answer("EVAL join", .integer(10_000))
        harness.answer("SMEMBERS {node:n1}:rooms", .texts(["lobby"]))
        #expect(harness.labels == ["EVAL roomState {room:lobby}:seq"])
        harness.answer("EVAL roomState {room:lobby}:seq", .array([.text("12"), .texts(["alice", "n1/d1 online Alice alice", "bob", "n2/d2 away Bob -"]),
                                                                   .array([])]))
        let alice = MemberRecord(nick: "Alice", account: "alice", status: .online, onThisNode: true, device: "d1")
        #expect(harness.reports == [.reap(node: "n1", room: "lobby", [alice])])
        harness.answer("SMEMBERS {node:n1}:holds", .texts(["{nick:alice}", "{peer:d1}"]))
        #expect(harness.labels == ["EVAL releaseAll"])
        #expect(harness.unanswered.first?.command.arguments.last == Array("n1/".utf8))
        harness.answer("EVAL releaseAll", .texts(["{nick:alice}", "{peer:d1}"]))
        harness.answer("DEL {node:n1}:holds", .integer(1))
        harness.answer("DEL {node:n1}:rooms", .integer(1))
        #expect(harness.labels == ["HGETALL {server}:bans"])
        // Its own earlier run is not a reaped node, and no claim of it is closed.
        #expect(harness.node.figures.nodesReaped == 0)
    }

    /// Appends wait for the epoch: a check that cannot reach Redis leaves them held, and the next
    /// connection checks again.
    @Test func appendsWaitForTheEpoch() {
        let harness = NodeHarness()
        harness.take(harness.node.connected(server: "redis:1"))
        harness.answer("SET {meta}:epoch", .failure(.notStored("not connected")))
        #expect(!harness.node.epochChecked)
        #expect(harness.node.appendEpoch == nil)
        #expect(harness.labels.isEmpty)
        harness.take(harness.node.connected(server: "redis:1"))
        harness.answer("SET {meta}:epoch", .text("epoch-other"))
        #expect(harness.node.epochChecked)
        #expect(harness.node.appendEpoch?.value == "epoch-other")
        #expect(harness.node.appendEpoch?.key == "{meta}:epoch")
        // On a Redis Cluster the epoch is in another slot than the rooms': appends do not carry it.
        let sharded = NodeHarness(sharded: true)
        sharded.take(sharded.node.connected(server: "redis:1"))
        sharded.answer("SET {meta}:epoch", .null)
        #expect(sharded.node.epochChecked)
        #expect(sharded.node.appendEpoch == nil)
    }
}
