import Foundation
import Glibc
import TestSupport
import Testing

/// chat-client against two nodes of one chat system (`chat-server --cluster` on a real Redis):
/// kill -9 of the node a client is on mid-conversation (PROTOCOL.md section 10).
@Suite("chat-client and a node's death", .serialized)
struct ClusterFailoverTests {
    /// alice (chat-client, given both nodes) and carol (a bot that will not move) are on node 0,
    /// bob on node 1. Node 0 is killed: alice's next line takes her to node 1 with her nick, and
    /// bob gets it exactly once and sees no `left` of hers; carol, who does not come back, is shown
    /// `left` with `node-lost`.
    @Test func clientsMoveOthersSeeNodeLostNothingIsLost() throws {
        let redis = try RedisServerProcess()
        defer { redis.stop() }
        let url = "redis://127.0.0.1:\(redis.port)"
        // The nodes of one chat system share one files folder (a node on its own is refused).
        let files = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-files-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: files) }
        let zero = try ChatServerProcess(["--cluster", url, "--node", "n0", "--files", files])
        let one = try ChatServerProcess(["--cluster", url, "--node", "n1", "--files", files])
        defer { one.stop() }
        for node in [zero, one] {
            #expect(node.process.waitForLine(timeout: 20) { $0.contains("cluster node ready") } != nil)
        }
        let bob = try LineModeTests.client(port: one.port, nick: "bob")
        #expect(bob.waitForEvent("#lobby * bob joined"))
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("carol-\(UUID().uuidString).bot").path
        try "bot carol {\n    say carol is here\n    wait 120s\n}\n".write(toFile: script, atomically: true, encoding: .utf8)
        let carol = try ChildProcess(BuildPaths.product("chat-bot"), ["script", script, "--port", String(zero.port), "--ca", TestCertificates.ca])
        defer { carol.terminate() }
        #expect(bob.waitForEvent("#lobby <carol> carol is here", timeout: 20))

        let home = try ClientHome()
        defer { home.remove() }
        let alice = try SeveralServersTests.client(home, nick: "alice", servers: ["localhost:\(zero.port)", "localhost:\(one.port)"])
        #expect(alice.waitForLine(timeout: 10) { $0.contains("chat-client: connected to localhost:\(zero.port)") } != nil)
        alice.write("on node zero\n")
        #expect(bob.waitForEvent("#lobby <alice> on node zero"))

        SeveralServersTests.kill(zero)
        alice.write("after the kill\n")
        #expect(alice.waitForLine(timeout: 10) { $0.contains("chat-client: reconnected to localhost:\(one.port)") } != nil)
        #expect(bob.waitForEvent("#lobby <alice> after the kill"))
        #expect(bob.waitForEvent("#lobby * carol left (node-lost)", timeout: 15), "\(bob.outputLines.suffix(20))")
        alice.write("still chatting\n")
        #expect(bob.waitForEvent("#lobby <alice> still chatting"))

        alice.closeInput()
        #expect(alice.finish(timeout: 30).status == 0)
        bob.closeInput()
        let lines = bob.finish(timeout: 10).output.split(separator: "\n").map { untimed(String($0)) }
        #expect(lines.filter { $0 == "#lobby <alice> after the kill" }.count == 1)
        // Until she quits at the end, alice never left.
        let beforeQuit = lines.prefix { $0 != "#lobby <alice> still chatting" }
        #expect(!beforeQuit.contains { $0.contains("alice left") }, "alice moved without leaving: \(lines)")
    }
}
