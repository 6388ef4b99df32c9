import ChatClientKit
import ChatProtocol
import Foundation
import Glibc
import QuicEngine
import Testing
import TestSupport

/// What `unavailable` says (issue 26, item 3; docs/PROTOCOL.md section 10, item 14): with Redis
/// frozen (SIGSTOP) a message may be stored although its answer was `unavailable`; only an answer
/// with `stored: false` promises it was not. Real nodes on a real redis-server, protocol clients
/// and chat-bot load.
@Suite("cluster unavailable answers", .serialized)
struct ClusterUnavailableTests {
    struct FrozenOutcome: Sendable {
        var ok = false
        var steps: [String] = []
        var sent = 0
        /// Ids answered `unavailable` with `stored: false`, and without it.
        var notStored: [String] = []
        var uncertain: [String] = []
        /// Before any resend: the ids bob got, and lobby's history.
        var bobGotBefore: Set<String> = []
        var historyBefore: [String] = []
        var end = FaultEnding()
    }

    /// alice (n1) sends a message every 50 ms while Redis is frozen for longer than the 5 s a reply
    /// may be overdue. Those in flight when it froze are answered `unavailable` without `stored`
    /// (they may be stored when Redis wakes, and some are); those sent once the nodes dropped the
    /// connection are answered `stored: false`, and none of those is stored or delivered. Resent
    /// with their ids afterwards, every message is stored once, and bob gets each once. (Before,
    /// no answer told the two apart.)
    @Test func frozenRedisAnswersSayWhatWasStored() async throws {
        let redis = try RedisServerProcess()
        let server = try ChatServerProcess(ClusterFaultTests.unlimited, nodes: 2, redis: redis)
        defer { server.stop() }
        let result = try await onDedicatedThread { () throws -> FrozenOutcome in
            var outcome = FrozenOutcome()
            let world = try ChatTestWorld(port: server.port)
            let alice = try world.connect("alice", node: 0)
            let bob = try world.connect("bob", node: 1)
            outcome.ok = world.run { world.joined(alice) && world.joined(bob) && world.has(alice, type: "joined") { $0.sender == "bob" } }
            var sending = true
            func sendNext() {
                guard sending else { return }
                alice.send(.msg(room: "lobby", text: "text of a-\(outcome.sent)", id: "a-\(outcome.sent)"))
                outcome.sent += 1
                world.loop.schedule(at: .now() + .milliseconds(50)) { sendNext() }
            }
            sendNext()
            outcome.ok = outcome.ok && world.run { world.count(alice, type: "ack") >= 10 }
            let connects = server.nodes.map { node in node.process.lineCount { $0.contains(" redis connected ") } }
            redis.freeze()
            var frozen = true
            defer { if frozen { redis.thaw() } }
            // Past the reply timeout the nodes drop the connection; what comes later is refused.
            func notStoredAnswers() -> Int { world.messages(alice, type: "error").count { $0.stored == false } }
            outcome.ok = outcome.ok && world.run(seconds: 20) { notStoredAnswers() >= 10 }
            outcome.steps.append("refused while frozen \(outcome.ok)")
            sending = false
            redis.thaw()
            frozen = false
            for (node, before) in zip(server.nodes, connects) {
                outcome.ok = outcome.ok && node.process.waitForLine(timeout: 20, skipping: before) { $0.contains(" redis connected ") } != nil
            }
            outcome.steps.append("reconnected \(outcome.ok)")
            let sent = outcome.sent
            outcome.ok = outcome.ok && world.run { Set(world.messages(alice, channel: .chat).compactMap(\.id)).count >= sent }
            for error in world.messages(alice, type: "error") where error.code == "unavailable" {
                if error.stored == false { outcome.notStored.append(error.id ?? "") } else { outcome.uncertain.append(error.id ?? "") }
            }
            // What Redis ran when it woke reaches bob through the nodes' gap fills.
            world.settle(seconds: 2)
            outcome.bobGotBefore = Set(world.messages(bob, type: "msg").compactMap(\.id))
            outcome.historyBefore = try Self.history(world, node: 1, limit: sent + 50)
            // Every unacknowledged id again, until each is acknowledged.
            for round in 0..<10 {
                let acked = Set(world.messages(alice, type: "ack").compactMap(\.id))
                let missing = (0..<sent).map { "a-\($0)" }.filter { !acked.contains($0) }
                if missing.isEmpty { break }
                for id in missing { alice.send(.msg(room: "lobby", text: "text of \(id)", id: id)) }
                _ = world.run(seconds: 10) { Set(world.messages(alice, type: "ack").compactMap(\.id)).isSuperset(of: missing) }
                outcome.steps.append("resend round \(round): \(missing.count)")
            }
            outcome.end = try FaultEnding(world, alice: alice, bob: bob, ids: (0..<sent).map { "a-\($0)" })
            outcome.ok = outcome.ok && outcome.end.complete
            return outcome
        }
        #expect(result.ok, "\(result.steps)")
        #expect(!result.notStored.isEmpty)
        let storedAnyway = Set(result.notStored).intersection(result.bobGotBefore.union(result.historyBefore))
        #expect(storedAnyway.isEmpty, "answered stored:false, yet stored: \(storedAnyway.sorted())")
        // Every id acknowledged with one seq, in the history once, delivered to bob once.
        let ids = (0..<result.sent).map { "a-\($0)" }
        #expect(Set(result.end.acks.keys) == Set(ids))
        #expect(result.end.acks.values.allSatisfy { Set($0).count == 1 })
        let history = result.end.history.compactMap(\.id)
        #expect(history.count == ids.count && Set(history) == Set(ids), "\(history.count) of \(ids.count)")
        let bobGot = result.end.bobGot.compactMap(\.id)
        #expect(bobGot.count == ids.count && Set(bobGot) == Set(ids), "\(bobGot.count) of \(ids.count)")
        print("frozen Redis: \(result.sent) sent, \(result.notStored.count) answered stored:false, \(result.uncertain.count) unavailable "
              + "without it, of which \(Set(result.uncertain).intersection(result.bobGotBefore).count) were stored and delivered anyway")
    }

    /// `chat-bot load` over two nodes while Redis is frozen for longer than the reply timeout: the
    /// messages answered `unavailable` are sent again with their ids until acknowledged, and the run
    /// passes with everything acknowledged, nothing lost or doubled. (Before, they were dropped:
    /// fewer acknowledged than sent, and the run still said ok.)
    @Test func loadAcrossAFrozenRedisLosesNothing() throws {
        let redis = try RedisServerProcess()
        let server = try ChatServerProcess(["--flood-burst", "1000", "--flood-rate", "1000"], nodes: 2, redis: redis)
        defer { server.stop() }
        let load = try BotRun("load", port: server.port, ["--clients", "6", "--rate", "40", "--duration", "14", "--warmup", "1",
                                                          "--drain", "30"])
        try #require(load.waitForLine(timeout: 60) { $0.contains(" measuring | clients 6/6 ") } != nil)
        let unreachable = server.nodes[0].process.lineCount { $0.contains(" redis unreachable ") }
        redis.freeze()
        // Frozen until a node gave up waiting for its replies (5 s).
        let dropped = server.nodes[0].process.waitForLine(timeout: 20, skipping: unreachable) { $0.contains(" redis unreachable ") } != nil
        redis.thaw()
        #expect(dropped)
        let run = load.finish(timeout: 120)
        #expect(run.status == 0, "\(run.text)")
        let messages = run.section("messages")
        #expect((messages["unavailable"] as? Int ?? 0) > 0, "\(run.text)")
        #expect(messages["refused"] as? Int == 0 && messages["unacknowledged"] as? Int == 0, "\(run.text)")
        #expect(messages["acknowledged"] as? Int == messages["sent"] as? Int, "\(run.text)")
        #expect(run.lostNothing, "\(run.summary)")
    }

    /// Lobby's history as a new client on node `node` reads it: the ids of its `msg`s.
    static func history(_ world: ChatTestWorld, node: Int, limit: Int) throws -> [String] {
        let reader = try world.connect("reader\(node)", node: node)
        guard world.run(until: { world.joined(reader) }) else { return [] }
        reader.send(.history(room: "lobby", limit: limit))
        guard world.run(until: { world.has(reader, type: "history-end") }) else { return [] }
        let chat = world.messages(reader, channel: .chat)
        let joinedAt = chat.firstIndex { $0.type == "joined" && $0.sender == reader.assignedNick && $0.replay != true } ?? chat.endIndex
        let ids = chat[joinedAt...].filter { $0.type == "msg" && $0.replay == true }.compactMap(\.id)
        reader.quit()
        return ids
    }
}
