import ChatClientKit
import ChatProtocol
import Foundation
import Glibc
import QuicEngine
import QuicIO
import Testing
import TestSupport

/// Data lost in place, without a reconnect to tell (issue 26, item 2): a FLUSHALL, a room's keys
/// gone (as eviction would take them), and a Redis whose eviction policy may drop keys. Real
/// nodes on a real redis-server, protocol clients.
@Suite("cluster data lost in place", .serialized)
struct ClusterDataLossTests {
    struct LossOutcome: Sendable {
        var ok = false
        var steps: [String] = []
        /// The room's last seq before the loss.
        var top: Int64 = 0
        /// Seqs of the acks alice got after the loss, and of the live `msg`s bob got after it.
        var ackedAfterLoss: [Int64] = []
        var bobLiveAfterLoss: [Int64] = []
        var aliceClose: UInt64?
        var bobClose: UInt64?
        /// After reconnecting with `since` = top: the seqs of what they got, and the acks.
        var rejoinedAcks: [Int64] = []
        var bobRejoinedLive: [Int64] = []
        var lossLogged: [Bool] = []
    }

    /// alice (n1) and bob (n2) chat in lobby; Redis loses data in place (`loss`), and alice goes on
    /// sending, one message every 100 ms. Her node must find the loss at its next append (or its
    /// next heartbeat), store nothing meanwhile, raise the room's counter above what it delivered
    /// and close its connections (SHUTDOWN: the data behind its users' nicks and rooms is gone);
    /// after reconnecting with `since`, every new seq is above the old ones.
    /// With `everyNodeFinds` (the store's epoch is gone too), bob's node finds it within a
    /// heartbeat and closes bob as well.
    private func lossScenario(everyNodeFinds: Bool, _ loss: @escaping @Sendable (RedisServerProcess) throws -> Void) async throws -> LossOutcome {
        let server = try ChatServerProcess(ClusterFaultTests.unlimited, nodes: 2)
        defer { server.stop() }
        let redis = try #require(server.redis)
        return try await onDedicatedThread { () throws -> LossOutcome in
            var outcome = LossOutcome()
            let world = try ChatTestWorld(port: server.port)
            let alice = try world.connect("alice", node: 0)
            let bob = try world.connect("bob", node: 1)
            outcome.ok = world.run { world.joined(alice) && world.joined(bob) && world.has(alice, type: "joined") { $0.sender == "bob" } }
            for index in 0..<5 { alice.send(.msg(room: "lobby", text: "before \(index)", id: "a-\(index)")) }
            outcome.ok = outcome.ok && world.run { world.count(alice, type: "ack") == 5 && world.count(bob, type: "msg") == 5 }
            outcome.top = world.messages(bob, channel: .chat).compactMap(\.seq).max() ?? 0
            outcome.steps.append("before \(outcome.ok) top \(outcome.top)")
            let readyMarks = server.nodes.map { node in node.process.lineCount { $0.contains(" cluster node ready ") } }
            let (acksBefore, msgsBefore) = (world.count(alice, type: "ack"), world.messages(bob, type: "msg").count)
            try loss(redis)
            var sending = true
            var sent = 0
            // The next send's timer holds the world (through `sendNext`) and the world's loop holds
            // the timer: it is cancelled once sending ends (LeakSanitizer reported the cycle).
            var nextSend: LoopTimerID?
            func sendNext() {
                guard sending, world.closeCode(alice) == nil else { return }
                alice.send(.msg(room: "lobby", text: "after \(sent)", id: "x-\(sent)"))
                sent += 1
                nextSend = world.loop.schedule(at: .now() + .milliseconds(100)) { sendNext() }
            }
            sendNext()
            outcome.ok = outcome.ok && world.run(seconds: 20) { world.closeCode(alice) != nil && (!everyNodeFinds || world.closeCode(bob) != nil) }
            sending = false
            if let nextSend { world.loop.cancel(nextSend) }
            outcome.steps.append("alice closed \(outcome.ok) after \(sent) sent")
            outcome.aliceClose = world.closeCode(alice)
            outcome.bobClose = world.closeCode(bob)
            outcome.ackedAfterLoss = world.messages(alice, type: "ack").dropFirst(acksBefore).compactMap(\.seq)
            outcome.bobLiveAfterLoss = world.messages(bob, type: "msg").dropFirst(msgsBefore).compactMap(\.seq)
            // Alice's node joins the cluster again; both reconnect with since = the old top.
            outcome.ok = outcome.ok && world.run(seconds: 20) {
                server.nodes[0].process.lineCount { $0.contains(" cluster node ready ") } > readyMarks[0]
            }
            outcome.steps.append("n1 ready again \(outcome.ok)")
            // bob's node is waited for before bob's hello, as alice's is: a hello that reaches a
            // node still joining again is answered `unavailable`, and this client does not say it
            // again (under ThreadSanitizer n2 was not ready yet when bob came back).
            if everyNodeFinds {
                outcome.ok = outcome.ok && world.run(seconds: 20) {
                    server.nodes[1].process.lineCount { $0.contains(" cluster node ready ") } > readyMarks[1]
                }
            }
            let bobBack = everyNodeFinds ? try world.connect("bob", since: outcome.top, node: 1) : bob
            let aliceBack = try world.connect("alice", since: outcome.top, node: 0)
            outcome.ok = outcome.ok && world.run(seconds: 20) { world.joined(aliceBack) && world.joined(bobBack) }
            outcome.steps.append("back \(outcome.ok)")
            let bobMark = world.messages(bobBack, type: "msg").count
            // Each sent until acknowledged (a node still recovering answers `unavailable`).
            for round in 0..<20 where world.count(aliceBack, type: "ack") < 3 {
                let acked = Set(world.messages(aliceBack, type: "ack").compactMap(\.id))
                for index in 0..<3 where !acked.contains("c-\(index)") {
                    aliceBack.send(.msg(room: "lobby", text: "again \(index)", id: "c-\(index)"))
                }
                _ = world.run(seconds: 1) { world.count(aliceBack, type: "ack") >= 3 }
                outcome.steps.append("round \(round)")
            }
            outcome.ok = outcome.ok && world.run { world.messages(bobBack, type: "msg").dropFirst(bobMark).count >= 3 }
            outcome.rejoinedAcks = world.messages(aliceBack, type: "ack").compactMap(\.seq)
            outcome.bobRejoinedLive = world.messages(bobBack, type: "msg").dropFirst(bobMark).filter { $0.replay != true }.compactMap(\.seq)
            outcome.lossLogged = server.nodes.map { node in node.process.lineCount { $0.contains("redis lost") } > 0 }
            return outcome
        }
    }

    /// FLUSHALL with no reconnect: before, seqs 1, 2, ... were handed out again (alice's next
    /// messages acknowledged with seqs a client had seen for other events) and nobody noticed.
    @Test func flushAllIsFoundWithoutAReconnect() async throws {
        let result = try await lossScenario(everyNodeFinds: true) { redis in try redis.cli("FLUSHALL") }
        #expect(result.ok, "\(result.steps)")
        #expect(result.ackedAfterLoss.allSatisfy { $0 > result.top }, "\(result.ackedAfterLoss) top \(result.top)")
        #expect(result.bobLiveAfterLoss.allSatisfy { $0 > result.top }, "\(result.bobLiveAfterLoss)")
        #expect(result.aliceClose == CloseCode.shutdown.rawValue && result.bobClose == CloseCode.shutdown.rawValue)
        #expect(result.rejoinedAcks.count == 3 && result.rejoinedAcks.allSatisfy { $0 > result.top }, "\(result.rejoinedAcks)")
        #expect(result.bobRejoinedLive.count >= 3 && result.bobRejoinedLive.allSatisfy { $0 > result.top }, "\(result.bobRejoinedLive)")
        #expect(result.lossLogged == [true, true])
    }

    /// One room's keys gone while the rest (the epoch included) stays, as eviction takes keys:
    /// only the next append can tell. Before, it was stored with seq 1.
    @Test func roomKeysLostAloneAreFoundByTheNextAppend() async throws {
        let result = try await lossScenario(everyNodeFinds: false) { redis in
            try redis.cli("DEL", "{room:lobby}:seq", "{room:lobby}:events", "{room:lobby}:members")
        }
        #expect(result.ok, "\(result.steps)")
        #expect(result.ackedAfterLoss.allSatisfy { $0 > result.top }, "\(result.ackedAfterLoss) top \(result.top)")
        #expect(result.bobLiveAfterLoss.allSatisfy { $0 > result.top }, "\(result.bobLiveAfterLoss)")
        #expect(result.aliceClose == CloseCode.shutdown.rawValue)
        #expect(result.rejoinedAcks.count == 3 && result.rejoinedAcks.allSatisfy { $0 > result.top }, "\(result.rejoinedAcks)")
        #expect(result.bobRejoinedLive.count >= 3 && result.bobRejoinedLive.allSatisfy { $0 > result.top }, "\(result.bobRejoinedLive)")
        #expect(result.lossLogged.first == true)
    }

    /// A Redis with `maxmemory-policy allkeys-lru` (and a maxmemory) may drop any key: a node does
    /// not join it (it logs why and shows `qchat_cluster_redis_eviction_safe 0`); set to
    /// `noeviction`, the node joins without a restart; set back to an evicting policy while it
    /// runs, the node logs the error again and the gauge drops. Before, it joined at once.
    @Test func redisThatMayEvictKeysIsRefused() throws {
        let redis = try RedisServerProcess(options: .init(extra: ["--maxmemory", "100mb", "--maxmemory-policy", "allkeys-lru"]))
        let files = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-evict-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: files) }
        let node = try ChatServerProcess(exactly: ClusterIdentityTests.nodeArguments(redis: redis, node: "n1", files: files,
                                                                                     extra: ["--metrics", "127.0.0.1:0", "--metrics-cache", "0"]))
        defer { node.stop() }
        let metricsPort = try #require(node.metricsPort)
        func safe() -> Double? { HTTPProbe.get(port: metricsPort, until: 200).flatMap { ScrapedMetrics($0.body)["qchat_cluster_redis_eviction_safe"] } }
        func errors() -> Int { node.process.lineCount { $0.contains("redis may evict keys") } }
        #expect(node.process.waitForLine(timeout: 20) { $0.contains("redis may evict keys") && $0.contains("allkeys-lru") } != nil)
        // Several heartbeats: still not in the cluster.
        #expect(node.process.waitForLine(timeout: TestTime.scaled(4)) { $0.contains(" cluster node ready ") } == nil)
        #expect(safe() == 0)
        try redis.cli("CONFIG", "SET", "maxmemory-policy", "noeviction")
        #expect(node.process.waitForLine(timeout: 20) { $0.contains(" cluster node ready ") } != nil)
        #expect(safe() == 1)
        let before = errors()
        try redis.cli("CONFIG", "SET", "maxmemory-policy", "volatile-lru")
        #expect(node.process.waitForLine(timeout: 20) { $0.contains("redis may evict keys") && $0.contains("volatile-lru") } != nil)
        #expect(errors() == before + 1)
        #expect(safe() == 0)
    }
}
