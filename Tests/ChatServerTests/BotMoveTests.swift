import Foundation
import Glibc
import TestSupport
import Testing

/// chat-bot's bots moving between two real `chat-server` nodes on a real `redis-server` when the
/// node they are on is killed (PROTOCOL.md section 10, "The clients"): as chat-client, the same
/// peer and nick on the next node, every room from the last seq seen, unacknowledged messages
/// sent again with their ids.
@Suite("chat-bot moving between nodes", .serialized)
struct BotMoveTests {
    /// `chat-bot load --server A --server B`, 20 clients in 2 rooms at 50 msgs/s for 8 s: node A is
    /// killed (-9) 2 s into the measured window. Its 10 clients move to B and resume there: nothing
    /// lost, doubled or reordered, every message acknowledged, 10 moves, and the run passes.
    @Test func loadClientsMoveWhenTheirNodeIsKilled() throws {
        let nodes = try ClusterNodesTests.Nodes(2, extra: ["--flood-burst", "1000", "--flood-rate", "1000"])
        let (a, b) = ("127.0.0.1:\(nodes.port(0))", "127.0.0.1:\(nodes.port(1))")
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("bot-move-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: json) }
        let load = try ChildProcess(BuildPaths.product("chat-bot"), [
            "load", "--server", a, "--server", b, "--ca", TestCertificates.ca, "--clients", "20", "--rooms", "2", "--rate", "50",
            "--duration", "8", "--warmup", "1", "--json", json,
        ])
        // The progress line, once a second: the second one of the measured window.
        let measuring = load.waitForLine(timeout: 60, skipping: 1) { $0.contains(" measuring | clients 20/20 ") }
        try #require(measuring != nil, "\(load.errorOutput)")
        nodes.servers[0].process.signal(SIGKILL)
        let run = load.finish(timeout: 90)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any],
                                  "\(run.output)\n\(run.errors)")
        let text = "\(run.output)\n\(run.errors.suffix(3000))"
        #expect(run.status == 0, "\(text)")
        let connect = try #require(report["connect"] as? [String: Any])
        let onA = (connect["joined_per_server"] as? [String: Int])?[a]
        #expect(onA == 10, "\(text)")
        let moves = try #require(report["moves"] as? [String: Any])
        #expect(moves["moved"] as? Int == onA && moves["unfinished"] as? Int == 0, "\(text)")
        let moveTime = try #require(moves["ms"] as? [String: Any])
        #expect((moveTime["p50"] as? Double ?? 0) > 0 && (moveTime["count"] as? Int) == onA, "\(moveTime)")
        let messages = try #require(report["messages"] as? [String: Any])
        #expect(messages["sent_measured"] as? Int == 400 && messages["unacknowledged_measured"] as? Int == 0, "\(text)")
        #expect(messages["acknowledged"] as? Int == messages["sent"] as? Int, "\(text)")
        let deliveries = try #require(report["deliveries"] as? [String: Any])
        #expect(deliveries["lost"] as? Int == 0 && deliveries["duplicated"] as? Int == 0 && deliveries["out_of_order"] as? Int == 0, "\(text)")
        #expect(deliveries["expected"] as? Int == deliveries["delivered"] as? Int && deliveries["expected"] as? Int == 400 * 9, "\(text)")
        #expect(report["closed_unexpectedly"] as? Int == 0, "\(text)")
        #expect(run.output.contains("| moves (lost connections resumed) | 10 in "), "\(run.output)")
    }

    /// alice (a script bot given A and B, on A) waits for bob's message within 20 s; A is killed,
    /// then bob (on B) says it. alice moves to B, gets it exactly once (live or in her re-join's
    /// replay: she missed it while away), answers, and both scripts complete.
    @Test func scriptBotMovesAndItsExpectationIsMet() throws {
        let nodes = try ClusterNodesTests.Nodes(2)
        let (a, b) = ("127.0.0.1:\(nodes.port(0))", "127.0.0.1:\(nodes.port(1))")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bot-move-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try """
            bot alice {
                expect msg from bob "after the kill" within 20s
                say thanks bob
            }
            """.write(toFile: folder + "/alice.bot", atomically: true, encoding: .utf8)
        try """
            bot bob {
                say after the kill
                expect msg from alice "thanks bob" within 30s
            }
            """.write(toFile: folder + "/bob.bot", atomically: true, encoding: .utf8)
        let alice = try ChildProcess(BuildPaths.product("chat-bot"),
                                     ["script", folder + "/alice.bot", "--server", a, "--server", b, "--ca", TestCertificates.ca, "--verbose"])
        defer { alice.terminate() }
        #expect(alice.waitForLine(timeout: 20) { $0.hasPrefix("alice ") && $0.contains("\"type\":\"joined\"") && $0.contains("\"sender\":\"alice\"") }
                != nil, "\(alice.errorOutput)")
        nodes.servers[0].process.signal(SIGKILL)
        let bob = try ChildProcess(BuildPaths.product("chat-bot"), ["script", folder + "/bob.bot", "--port", String(nodes.port(1)),
                                                                   "--ca", TestCertificates.ca]).finish(timeout: 60)
        #expect(bob.status == 0, "\(bob.errors)")
        let aliceRun = alice.finish(timeout: 30)
        #expect(aliceRun.status == 0, "\(aliceRun.errors)")
        #expect(aliceRun.errors.contains("alice: connection lost (") && aliceRun.errors.contains("moving to \(b)"), "\(aliceRun.errors)")
        #expect(aliceRun.errors.contains("alice: back, through \(b)"), "\(aliceRun.errors)")
        let copies = aliceRun.output.split(separator: "\n").filter { $0.contains("\"type\":\"msg\"") && $0.contains("after the kill") }
        #expect(copies.count == 1, "\(copies)")
    }

    /// One server (with its history on disk) killed and, once carol has failed, started again on
    /// its port. carol, with `--no-move`, fails as soon as her connection is found lost (her
    /// keep-alive meets ICMP port unreachable), naming her line, as every bot did before moves.
    /// alice, waiting for bob, reconnects to the same server with backoff until it is back (with
    /// one server the next is the same), resumes, and gets bob's message, live or in her replay.
    @Test func scriptBotComesBackToItsRestartedServerUnlessNoMove() throws {
        let database = temporaryDatabasePath()
        defer { removeDatabase(database) }
        let arguments = { (port: UInt16) in
            ["--port", String(port), "--cert", TestCertificates.serverCertificate, "--key", TestCertificates.serverKey, "--log-level", "debug",
             "--db", database]
        }
        let first = try ChatServerProcess(exactly: arguments(0))
        defer { first.stop() }
        let port = first.port
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bot-move-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "bot alice {\n    say alice is here\n    expect msg from bob \"back again\" within 40s\n}\n"
            .write(toFile: folder + "/alice.bot", atomically: true, encoding: .utf8)
        try "bot carol {\n    wait 60s\n}\n".write(toFile: folder + "/carol.bot", atomically: true, encoding: .utf8)
        try "bot bob {\n    say back again\n}\n".write(toFile: folder + "/bob.bot", atomically: true, encoding: .utf8)
        let script = { (name: String, extra: [String]) in
            try ChildProcess(BuildPaths.product("chat-bot"), ["script", folder + "/\(name).bot", "--port", String(port), "--ca", TestCertificates.ca] + extra)
        }
        let alice = try script("alice", ["--verbose"])
        defer { alice.terminate() }
        let carol = try script("carol", ["--no-move", "--verbose"])
        defer { carol.terminate() }
        #expect(alice.waitForLine(timeout: 20) { $0.hasPrefix("alice ") && $0.contains("\"type\":\"ack\"") } != nil, "\(alice.errorOutput)")
        #expect(carol.waitForLine(timeout: 20) { $0.hasPrefix("carol ") && $0.contains("\"type\":\"joined\"") } != nil, "\(carol.errorOutput)")
        first.process.signal(SIGKILL)
        _ = first.process.finish(timeout: 5)
        let carolRun = carol.finish(timeout: 30)
        #expect(carolRun.status == 1, "\(carolRun.errors)")
        // Dropped, not moved: told by the ICMP port unreachable that answers its next packet, or,
        // when another test's socket took the freed port meanwhile (the suites run in parallel),
        // by its 5 s without an answer.
        #expect(carolRun.errors.contains("line 2: carol: connection closed: dropped: nothing listens at 127.0.0.1:\(port)")
            || carolRun.errors.contains("line 2: carol: connection closed: dropped: no answer from 127.0.0.1:\(port)"), "\(carolRun.errors)")
        let second = try ChatServerProcess(exactly: arguments(port))
        defer { second.stop() }
        let bob = try script("bob", []).finish(timeout: 30)
        #expect(bob.status == 0, "\(bob.errors)")
        let aliceRun = alice.finish(timeout: 40)
        #expect(aliceRun.status == 0, "\(aliceRun.errors)")
        #expect(aliceRun.errors.contains("alice: back, through 127.0.0.1:\(port)"), "\(aliceRun.errors)")
    }

    /// A bot whose only server is gone for good fails the run once `--move-timeout` has passed
    /// since its connection was lost, saying why it was lost.
    @Test func scriptBotNotBackWithinItsMoveTimeoutFails() throws {
        let server = try ChatServerProcess(exactly: ["--port", "0", "--cert", TestCertificates.serverCertificate, "--key", TestCertificates.serverKey])
        defer { server.stop() }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bot-move-\(UUID().uuidString.prefix(8)).bot").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "bot alice {\n    repeat forever {\n        say tick\n        wait 200ms\n    }\n}\n".write(toFile: path, atomically: true, encoding: .utf8)
        let alice = try ChildProcess(BuildPaths.product("chat-bot"), ["script", path, "--port", String(server.port), "--ca", TestCertificates.ca,
                                                                     "--move-timeout", "2", "--verbose"])
        defer { alice.terminate() }
        #expect(alice.waitForLine(timeout: 20) { $0.hasPrefix("alice ") && $0.contains("\"type\":\"ack\"") } != nil, "\(alice.errorOutput)")
        server.process.signal(SIGKILL)
        let run = alice.finish(timeout: 30)
        #expect(run.status == 1, "\(run.errors)")
        #expect(run.errors.contains("alice: connection closed: dropped: nothing listens at 127.0.0.1:\(server.port) (ICMP port unreachable); "
            + "not back within 2s"), "\(run.errors)")
        #expect(run.errors.contains("alice: reconnecting to 127.0.0.1:\(server.port) failed"), "\(run.errors)")
    }
}

/// Bots whose first server is dead at their start (issue 26, item 5): they try the next server
/// after the rotation's backoff, as chat-client does. A real chat-server and a UDP port nothing
/// listens on (refused at once with ICMP port unreachable, as a killed node's port is).
@Suite("chat-bot with a dead server at its start", .serialized)
struct BotDeadServerAtStartTests {
    /// `chat-bot load --server DEAD --server LIVE`, 20 clients: the 10 assigned to the dead server
    /// join through the live one, each after one retry, and the run passes. (Before: each was
    /// retried on the dead server at once, thousands of times a second, until the connect
    /// deadline, and the run had 10 of 20.)
    @Test func loadClientsOfADeadServerMoveToTheNext() throws {
        let server = try ChatServerProcess(exactly: ["--port", "0", "--cert", TestCertificates.serverCertificate,
                                                     "--key", TestCertificates.serverKey])
        defer { server.stop() }
        let (dead, live) = ("127.0.0.1:\(try FreePort.udp())", "127.0.0.1:\(server.port)")
        let run = try BotRun("load", servers: [dead, live], ["--clients", "20", "--rate", "10", "--duration", "2",
                                                             "--connect-timeout", "20"]).finish(timeout: 60)
        let connect = run.section("connect")
        #expect(run.status == 0, "\(run.text)")
        #expect(connect["joined"] as? Int == 20, "\(connect)")
        #expect((connect["joined_per_server"] as? [String: Any])?[live] as? Int == 20, "\(connect)")
        let retries = connect["connect_retries"] as? Int ?? -1
        #expect(retries >= 10 && retries <= 20, "\(connect)")
    }

    /// `chat-bot script` whose only bot starts on a dead server: it says so, joins through the
    /// next server and the run passes. (Before: `connection closed: dropped: nothing listens`, status 1.)
    @Test func scriptBotOfADeadServerMovesToTheNext() throws {
        let server = try ChatServerProcess(exactly: ["--port", "0", "--cert", TestCertificates.serverCertificate,
                                                     "--key", TestCertificates.serverKey])
        defer { server.stop() }
        let (dead, live) = ("127.0.0.1:\(try FreePort.udp())", "127.0.0.1:\(server.port)")
        let alice = try ClusterLivenessTests.bot("bot alice {\n    say hello\n    wait 200ms\n}\n", servers: [dead, live])
        let run = alice.finish(timeout: 30)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.errors.contains("alice: connecting to \(dead) failed"), "\(run.errors)")
        #expect(run.errors.contains("trying \(live)"), "\(run.errors)")
    }
}
