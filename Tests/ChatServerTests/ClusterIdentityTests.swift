import ChatClientKit
import ChatProtocol
import Foundation
import Glibc
import QuicEngine
import Testing
import TestSupport

/// A node's name is held by one running process (issue 26, item 1): real nodes on a real
/// redis-server, a second process started with a running node's `--node`, and a stalled node
/// whose name a new process took meanwhile.
@Suite("cluster node identity", .serialized)
struct ClusterIdentityTests {
    struct DuplicateOutcome: Sendable {
        var ok = false
        var steps: [String] = []
        var duplicateStatus: Int32?
        var duplicateErrors = ""
        var duplicateReady = false
        var leftSeenByBob: [String] = []
        var newcomerNick: String?
        var dmReachedAlice = false
        var aliceClosed: UInt64?
    }

    /// alice on n1 and bob on n2; a third process is started with `--node n1`. It must not serve:
    /// it logs `node name taken` and exits with status 1, nobody sees alice leave, a newcomer
    /// asking for `alice` through n2 is `alice_2`, and a dm to alice reaches her on n1. (Before:
    /// the second process joined, reaped "its" earlier run, and everyone saw alice `left`
    /// `node-lost` while she was still connected; the nick was free for the newcomer.)
    @Test func secondProcessWithARunningNodesNameDoesNotServe() async throws {
        let nodes = try TwoNodes()
        defer { withExtendedLifetime(nodes) {} }
        let (redis, server, files) = (nodes.redis, nodes.server, nodes.files)
        let result = try await onDedicatedThread { () throws -> DuplicateOutcome in
            var outcome = DuplicateOutcome()
            let world = try ChatTestWorld(port: server.port)
            let alice = try world.connect("alice", node: 0)
            let bob = try world.connect("bob", node: 1)
            outcome.ok = world.run { world.joined(alice) && world.joined(bob) && world.has(alice, type: "joined") { $0.sender == "bob" } }
            outcome.steps.append("joined \(outcome.ok)")
            let duplicate = try ChatServerProcess(exactly: Self.nodeArguments(redis: redis, node: "n1", files: files))
            defer { duplicate.stop() }
            // It watches the name for a few heartbeats and finds it renewed: it must exit.
            let exited = world.run(seconds: 30) { !duplicate.process.isRunning }
            outcome.steps.append("duplicate exited \(exited)")
            outcome.duplicateReady = duplicate.process.lineCount { $0.contains(" cluster node ready ") } > 0
            let finished = duplicate.process.finish(timeout: 5)
            outcome.duplicateStatus = exited ? finished.status : nil
            outcome.duplicateErrors = finished.errors.split(separator: "\n").filter { $0.contains("node name") }.joined(separator: "\n")
            // A newcomer on n2 asking for alice's nick, and a dm from bob to alice.
            let newcomer = try world.connect("alice", node: 1)
            outcome.ok = outcome.ok && world.run { newcomer.assignedNick != nil }
            outcome.newcomerNick = newcomer.assignedNick
            bob.send(ChatMessage(type: "dm", text: "still there?", id: "dm-1", to: "alice"))
            outcome.dmReachedAlice = world.run { world.has(alice, type: "dm") { $0.text == "still there?" } }
            // Long enough for a reap to have happened had the node been taken for lost.
            world.settle(seconds: 2)
            outcome.leftSeenByBob = world.messages(bob, type: "left").map { "\($0.sender) \($0.text)" }
            outcome.aliceClosed = world.closeCode(alice)
            return outcome
        }
        #expect(result.ok, "\(result.steps)")
        #expect(result.duplicateStatus == 1, "\(result.steps)")
        #expect(!result.duplicateReady)
        #expect(result.duplicateErrors.contains("node name taken"), "\(result.duplicateErrors)")
        #expect(result.leftSeenByBob.isEmpty, "\(result.leftSeenByBob)")
        #expect(result.newcomerNick == "alice_2")
        #expect(result.dmReachedAlice)
        #expect(result.aliceClosed == nil)
    }

    struct StallOutcome: Sendable {
        var ok = false
        var steps: [String] = []
        var oldStatus: Int32?
        var oldErrors = ""
        var aliceClose: UInt64?
    }

    /// n1 is stopped (SIGSTOP) until n2 declares it lost; a new process takes the name n1 and
    /// serves. When the old one runs again, its renew finds its name another instance's: it
    /// closes its connections with SHUTDOWN (alice's client may move) and exits with status 1,
    /// loudly (`node name taken`). (Before: its renew found n1 in the directory, put there by the
    /// new process, and it went on serving alice as a second n1.)
    @Test func stalledNodeWhoseNameWasTakenStopsServing() async throws {
        let nodes = try TwoNodes()
        defer { withExtendedLifetime(nodes) {} }
        let (redis, server, files) = (nodes.redis, nodes.server, nodes.files)
        let old = server.nodes[0]
        let result = try await onDedicatedThread { () throws -> StallOutcome in
            var outcome = StallOutcome()
            let world = try ChatTestWorld(port: server.port)
            // alice's keep-alive must not end the connection while n1 is stopped: QUIC's idle
            // timeout is 30 s, the stop shorter.
            let alice = try world.connect("alice", node: 0)
            let bob = try world.connect("bob", node: 1)
            outcome.ok = world.run { world.joined(alice) && world.joined(bob) && world.has(alice, type: "joined") { $0.sender == "bob" } }
            old.process.signal(SIGSTOP)
            var stopped = true
            defer { if stopped { old.process.signal(SIGCONT) } }
            outcome.ok = outcome.ok && world.run(seconds: 20) { world.has(bob, type: "left") { $0.sender == "alice" } }
            outcome.steps.append("declared lost \(outcome.ok)")
            let newcomer = try ChatServerProcess(exactly: Self.nodeArguments(redis: redis, node: "n1", files: files))
            defer { newcomer.stop() }
            outcome.ok = outcome.ok && world.run(seconds: 20) { newcomer.process.lineCount { $0.contains(" cluster node ready ") } > 0 }
            outcome.steps.append("new n1 ready \(outcome.ok)")
            old.process.signal(SIGCONT)
            stopped = false
            let exited = world.run(seconds: 20) { !old.process.isRunning }
            outcome.steps.append("old n1 exited \(exited)")
            outcome.aliceClose = world.closeCode(alice)
            if exited {
                let finished = old.process.finish(timeout: 5)
                outcome.oldStatus = finished.status
                outcome.oldErrors = finished.errors.split(separator: "\n").filter { $0.contains("node name") }.joined(separator: "\n")
            }
            return outcome
        }
        #expect(result.ok, "\(result.steps)")
        #expect(result.oldStatus == 1, "\(result.steps)")
        #expect(result.oldErrors.contains("node name taken"), "\(result.oldErrors)")
        #expect(result.aliceClose == CloseCode.shutdown.rawValue)
    }

    /// Two nodes on a Redis of their own and the files folder they share (a third process is given
    /// it too); all stopped and removed when released.
    final class TwoNodes: Sendable {
        let redis: RedisServerProcess
        let server: ChatServerProcess
        let files: String

        init(_ extra: [String] = []) throws {
            redis = try RedisServerProcess()
            // One folder for all: a node on a folder of its own does not start (issue 23, item 21).
            files = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-node-\(UUID().uuidString.prefix(8))").path
            try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: true)
            server = try ChatServerProcess(ClusterFaultTests.unlimited + extra + ["--files", files], nodes: 2, redis: redis)
        }

        deinit {
            server.stop()
            try? FileManager.default.removeItem(atPath: files)
        }
    }

    /// What a test node is started with by hand (the cluster harness's arguments for node `node`).
    static func nodeArguments(redis: RedisServerProcess, node: String, files: String, extra: [String] = []) -> [String] {
        ["--port", "0", "--cert", TestCertificates.serverCertificate, "--key", TestCertificates.serverKey, "--log-level", "debug",
         "--cluster", "redis://127.0.0.1:\(redis.port)", "--node", node, "--files", files] + ClusterFaultTests.unlimited + extra
    }
}
