import ChatClientKit
import ChatProtocol
import Foundation
import Glibc
import QuicEngine
import Testing
import TestSupport

/// Liveness that does not amplify a failure (issue 26, item 4): a node stalled (SIGSTOP) for less
/// than `--cluster-node-timeout` keeps its place, its clients leave it within seconds for another
/// node, quietly; a planned stop (SIGTERM) hands its clients over without `left` or `joined`.
/// Real nodes on a real redis-server, chat-bot bots that move, protocol clients.
@Suite("cluster liveness", .serialized)
struct ClusterLivenessTests {
    struct Outcome: Sendable {
        var ok = false
        var steps: [String] = []
        /// What bob saw of alice after the fault: `left`/`joined` events.
        var bobSawOfAlice: [String] = []
        var secondsToComeBack: Double = 0
        var nodeLogs: [String] = []
    }

    /// bob on the second node, once alice's hello reached him; `mark`: what he had by then.
    static func bobHearsHello(_ world: ChatTestWorld) throws -> (bob: ChatSession, heard: Bool, mark: Int) {
        let bob = try world.connect("bob", node: 1)
        let heard = world.run(seconds: 20) { world.has(bob, type: "msg") { $0.text == "hello" } }
        return (bob, heard, world.messages(bob, channel: .chat).count)
    }

    /// alice, a chat-bot bot given both nodes (on n1), has said hello; n1 is stopped (SIGSTOP).
    /// Her keep-alive goes unanswered: she leaves n1 within 5 s of it (the idle timeout was 30 s)
    /// for n2, re-joins quietly as the same device, gets what bob said meanwhile and answers; the
    /// nodes run with `--cluster-node-timeout 25`, so n1 is not declared lost meanwhile: bob never
    /// sees alice leave or join. n1 runs again afterwards and keeps its place (no `node lost`, no
    /// `declared lost`), and serves a new client.
    @Test func clientsLeaveAStalledNodeQuietlyAndTheNodeKeepsItsPlace() async throws {
        let nodes = try ClusterIdentityTests.TwoNodes(["--cluster-node-timeout", "25"])
        defer { withExtendedLifetime(nodes) {} }
        let server = nodes.server
        let stalled = server.nodes[0]
        let b = "127.0.0.1:\(server.ports[1])"
        let alice = try Self.alice(waitingFor: "are you there", on: server)
        defer { alice.terminate() }
        let result = try await onDedicatedThread { () throws -> Outcome in
            var outcome = Outcome()
            let world = try ChatTestWorld(port: server.port)
            let (bob, heard, mark) = try Self.bobHearsHello(world)
            outcome.ok = heard
            stalled.process.signal(SIGSTOP)
            var stopped = true
            defer { if stopped { stalled.process.signal(SIGCONT) } }
            let stoppedAt = MonotonicTime.now()
            bob.send(.msg(room: "lobby", text: "are you there", id: "b-1"))
            outcome.ok = outcome.ok && world.run(seconds: 24) { world.has(bob, type: "msg") { $0.text == "still here" } }
            outcome.secondsToComeBack = (MonotonicTime.now() - stoppedAt).seconds
            outcome.steps.append("alice back through n2 \(outcome.ok) after \(outcome.secondsToComeBack) s")
            stalled.process.signal(SIGCONT)
            stopped = false
            // n1 renews again and keeps serving: a newcomer through it chats with bob.
            let carol = try world.connect("carol", node: 0)
            outcome.ok = outcome.ok && world.run(seconds: 20) { world.joined(carol) }
            carol.send(.msg(room: "lobby", text: "carol through n1", id: "c-1"))
            outcome.ok = outcome.ok && world.run { world.has(bob, type: "msg") { $0.text == "carol through n1" } }
            outcome.steps.append("n1 serves again \(outcome.ok)")
            outcome.bobSawOfAlice = world.messages(bob, channel: .chat).dropFirst(mark)
                .filter { ($0.type == "left" || $0.type == "joined") && $0.sender == "alice" }.map { "\($0.type) \($0.text)" }
            outcome.nodeLogs = server.nodes.flatMap { node in
                node.process.errorOutput.filter { $0.contains("node lost") || $0.contains("declared lost") || $0.contains("node name") }
            }
            return outcome
        }
        #expect(result.ok, "\(result.steps)")
        #expect(result.secondsToComeBack < 20, "\(result.steps)")
        #expect(result.bobSawOfAlice.isEmpty, "\(result.bobSawOfAlice)")
        #expect(result.nodeLogs.isEmpty, "\(result.nodeLogs)")
        let run = alice.finish(timeout: 30)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.errors.contains("moving to \(b)"), "\(run.errors)")
    }

    /// A planned stop (SIGTERM of n1): alice, a bot on n1, is closed with SHUTDOWN and moves to n2
    /// as the same device; bob (n2) sees her neither leave nor join and gets what she says next; n1
    /// exits with status 0; when the handover (`--cluster-node-timeout`) is over n2 logs `node
    /// stopped`, never `node lost`; a new n1 then serves.
    /// (Before: bob saw alice `left` `shutdown` and `joined` again, and every node logged `node
    /// lost` 6.5 s later.)
    @Test func plannedStopHandsItsClientsOverQuietly() async throws {
        let nodes = try ClusterIdentityTests.TwoNodes()
        defer { withExtendedLifetime(nodes) {} }
        let (redis, server, files) = (nodes.redis, nodes.server, nodes.files)
        let alice = try Self.alice(waitingFor: "after the stop", on: server)
        defer { alice.terminate() }
        let stopping = server.nodes[0]
        let survivor = server.nodes[1]
        let result = try await onDedicatedThread { () throws -> Outcome in
            var outcome = Outcome()
            let world = try ChatTestWorld(port: server.port)
            let (bob, heard, mark) = try Self.bobHearsHello(world)
            outcome.ok = heard
            stopping.process.signal(SIGTERM)
            outcome.ok = outcome.ok && world.run(seconds: 10) { !stopping.process.isRunning }
            outcome.steps.append("n1 exited \(outcome.ok) status \(stopping.process.isRunning ? -1 : stopping.process.finish(timeout: 1).status)")
            bob.send(.msg(room: "lobby", text: "after the stop", id: "b-1"))
            outcome.ok = outcome.ok && world.run(seconds: 20) { world.has(bob, type: "msg") { $0.text == "still here" } }
            outcome.steps.append("alice back \(outcome.ok)")
            // The handover over, n2 takes what is left of n1 out (nothing: alice moved): `node stopped`.
            outcome.ok = outcome.ok && world.run(seconds: 20) { survivor.process.lineCount { $0.contains(" node stopped ") } > 0 }
            outcome.steps.append("node stopped \(outcome.ok)")
            // A new n1 serves again. (Started within the handover, it waits for its end: the test
            // of the directory, NodeDirectoryTests.aNameIsHeldByOneInstance.)
            let restarted = try ChatServerProcess(exactly: ClusterIdentityTests.nodeArguments(redis: redis, node: "n1", files: files))
            defer { restarted.stop() }
            outcome.ok = outcome.ok && world.run(seconds: 30) { restarted.process.lineCount { $0.contains(" cluster node ready ") } > 0 }
            outcome.steps.append("stopped and restarted \(outcome.ok)")
            if !outcome.ok {
                outcome.steps += (survivor.process.errorOutput + restarted.process.errorOutput).filter { !$0.contains(" debug ") }.suffix(40)
            }
            // Until alice's last words (she quits at the end of her script).
            let chat = world.messages(bob, channel: .chat)
            let last = chat.lastIndex { $0.type == "msg" && $0.text == "still here" } ?? chat.endIndex
            outcome.bobSawOfAlice = chat[mark..<last].filter { ($0.type == "left" || $0.type == "joined") && $0.sender == "alice" }
                .map { "\($0.type) \($0.text)" }
            outcome.nodeLogs = survivor.process.errorOutput.filter { $0.contains("node lost") }
            return outcome
        }
        #expect(result.ok, "\(result.steps)")
        #expect(result.steps.first?.hasSuffix("status 0") == true, "\(result.steps)")
        #expect(result.bobSawOfAlice.isEmpty, "\(result.bobSawOfAlice)")
        #expect(result.nodeLogs.isEmpty, "\(result.nodeLogs)")
        let run = alice.finish(timeout: 30)
        #expect(run.status == 0, "\(run.errors)")
    }

    /// alice, a chat-bot bot given both nodes (on the first): says hello, waits (40 s) for bob's
    /// `text`, answers `still here`.
    static func alice(waitingFor text: String, on server: ChatServerProcess) throws -> ChildProcess {
        try bot("""
            bot alice {
                say hello
                expect msg from bob "\(text)" within 40s
                say still here
                wait 500ms
            }
            """, servers: server.ports.map { "127.0.0.1:\($0)" })
    }

    /// A chat-bot script given `servers`, its state (none expected) under a temporary folder.
    static func bot(_ script: String, servers: [String]) throws -> ChildProcess {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("liveness-\(UUID().uuidString).bot").path
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("liveness-home-\(UUID().uuidString.prefix(8))").path
        return try ChildProcess(BuildPaths.product("chat-bot"), ["script", path] + servers.flatMap { ["--server", $0] }
                                + ["--ca", TestCertificates.ca], environment: ["XDG_CONFIG_HOME": home + "/config", "XDG_STATE_HOME": home + "/state"])
    }
}
