import Foundation
import TestSupport
import Testing

/// The `chat-bot` binary against the real `chat-server` binary, both started as a user would.
@Suite("chat-bot end to end", .serialized)
struct ChatBotEndToEndTests {
    /// Flood and typing limits raised as README says a load test needs.
    static let loadLimits = ["--flood-burst", "1000", "--flood-rate", "1000", "--typing-rate", "100"]

    /// Two bots: alice says something and bob expects it, then bob answers with a dm that alice
    /// expects: the run completes with status 0.
    @Test func scriptWhoseExpectationsAreMetPasses() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let result = try runScript("""
            bot alice {
                say hello bob
                expect dm from bob "hi alice" within 5s
                quit
            }
            bot bob {
                expect msg from alice "hello" within 5s
                typing start
                dm alice hi alice
            }
            """, port: server.port)
        #expect(result.status == 0, "\(result.errors)")
    }

    /// A bot that expects a message nobody sends fails the run with status 1 and a message
    /// naming the script line of that expectation.
    @Test func unmetExpectationFailsNamingTheLine() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let result = try runScript("""
            bot alice {
                say hello
            }
            bot bob {
                expect msg from alice "hello"
                expect msg from alice "goodbye" within 300ms
            }
            """, port: server.port)
        #expect(result.status == 1)
        #expect(result.errors.contains("line 6: bob: expected a msg from alice matching \"goodbye\" within 300ms"), "\(result.errors)")
    }

    /// A bad script stops before connecting anywhere: status 2 and the line of the mistake.
    @Test func badScriptExitsWithTwo() throws {
        let result = try runScript("bot alice {\n  say hi\n  wiat 1s\n}\n", port: 1)
        #expect(result.status == 2)
        #expect(result.errors.contains("line 3: unknown command 'wiat'"), "\(result.errors)")
    }

    /// A short load run (20 clients, 2 rooms, 50 msgs/s, 3 s measured) loses, doubles and
    /// reorders nothing; every receiver got every measured message of its room, latencies are
    /// ordered and plausible, typing datagrams arrive, and the JSON report says so.
    @Test func shortLoadRunLosesNothing() throws {
        let server = try ChatServerProcess(ChatBotEndToEndTests.loadLimits)
        defer { server.stop() }
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("chat-bot-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: json) }
        let bot = try ChildProcess(BuildPaths.product("chat-bot"), [
            "load", "--port", String(server.port), "--ca", TestCertificates.ca, "--clients", "20", "--rooms", "2",
            "--rate", "50", "--size", "200", "--typing", "10", "--duration", "3", "--warmup", "1", "--json", json,
        ])
        let finished = bot.finish(timeout: 30)
        #expect(finished.status == 0, "\(finished.output)\n\(finished.errors)")
        #expect(finished.output.contains("| lost / duplicated / out of order | 0 / 0 / 0 |"), "\(finished.output)")
        let report = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        let connect = try #require(report["connect"] as? [String: Any])
        let messages = try #require(report["messages"] as? [String: Any])
        let deliveries = try #require(report["deliveries"] as? [String: Any])
        let latency = try #require(deliveries["latency_ms"] as? [String: Double])
        let typing = try #require(report["typing"] as? [String: Any])
        #expect(report["ok"] as? Bool == true)
        #expect(connect["joined"] as? Int == 20)
        #expect(messages["sent_measured"] as? Int == 150)
        #expect(messages["rate_limited"] as? Int == 0)
        // Each message reaches the 9 other members of its room.
        #expect(deliveries["expected"] as? Int == 150 * 9)
        #expect(deliveries["delivered"] as? Int == 150 * 9)
        #expect(deliveries["lost"] as? Int == 0 && deliveries["duplicated"] as? Int == 0 && deliveries["out_of_order"] as? Int == 0)
        let p50 = latency["p50"] ?? -1, p99 = latency["p99"] ?? -1, maximum = latency["max"] ?? -1
        #expect(p50 > 0 && p50 <= p99 && p99 <= maximum && maximum < 2000, "\(latency)")
        #expect((typing["received"] as? Int ?? 0) > 0, "\(typing)")
    }

    /// Against the server's default flood limits (burst 20, 5/s) two clients sending 28 messages
    /// a second each are rate limited: the replies are counted on their own, not as losses.
    @Test func rateLimitedRepliesAreCountedSeparately() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let bot = try ChildProcess(BuildPaths.product("chat-bot"), [
            "load", "--port", String(server.port), "--ca", TestCertificates.ca, "--clients", "2", "--rate", "56",
            "--duration", "1", "--warmup", "0",
        ])
        let finished = bot.finish(timeout: 30)
        let line = finished.output.split(separator: "\n").first { $0.hasPrefix("| rate-limited replies |") } ?? ""
        let count = Int(line.dropFirst("| rate-limited replies | ".count).prefix { $0.isNumber }) ?? 0
        #expect(count > 0, "\(finished.output)")
        #expect(line.contains("raise chat-server --flood-burst and --flood-rate"))
        #expect(finished.output.contains("| lost / duplicated / out of order | 0 / 0 / 0 |"), "\(finished.output)")
    }

    /// A script whose messages the server refuses for good (the default flood limit: 25 said at
    /// once, 20 in a burst; fewer than the 10 refusals that close a flooder) fails and says so: a run that lost anything fails (docs/PROTOCOL.md
    /// section 10, item 14). Before, the refused messages were dropped and the run passed.
    @Test func scriptWhoseMessagesAreRefusedFails() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let result = try runScript("""
            bot alice {
                repeat 25 {
                    say flooding
                }
            }
            """, port: server.port)
        #expect(result.status == 1, "\(result.errors)")
        #expect(result.errors.contains("the server refused a message (rate-limited"), "\(result.errors)")
    }

    /// A load run whose messages the server refuses for good (default flood limits) fails, and its
    /// table says how many were refused. Before, it passed with them dropped.
    @Test func loadThatLostMessagesFails() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let run = try BotRun.run("load", port: server.port, ["--clients", "2", "--rate", "56", "--duration", "1", "--warmup", "0"])
        #expect(run.status == 1, "\(run.text)")
        let messages = run.section("messages")
        #expect((messages["refused"] as? Int ?? 0) > 0, "\(run.text)")
        #expect(run.text.contains("(messages lost: the run fails)"), "\(run.text)")
    }

    private func runScript(_ text: String, port: UInt16) throws -> (status: Int32, errors: String) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("chat-bot-\(UUID().uuidString).bot").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let bot = try ChildProcess(BuildPaths.product("chat-bot"),
                                   ["script", path, "--port", String(port), "--ca", TestCertificates.ca])
        let finished = bot.finish(timeout: 30)
        return (finished.status, finished.errors)
    }
}

/// Bad flags of every chat-bot command: a clear line naming the flag, exit status 2.
@Suite("chat-bot command line")
struct ChatBotCommandLineTests {
    static let mistakes: [(arguments: [String], says: String)] = [
        (["flood", "--rate", "0"], "--rate must be"),
        (["flood", "--size", "5000"], "--size must be a whole number in 1...4096"),
        (["flood", "--duration", "-1"], "--duration must be"),
        (["load", "--clients", "0"], "--clients must be"),
        (["load", "--connect-timeout", "0"], "--connect-timeout must be"),
        (["load", "--arrivals", "bursty"], "--arrivals must be uniform or poisson"),
        (["script", "/nonexistent.bot"], "cannot read /nonexistent.bot"),
        (["script", "-", "--move-timeout", "0"], "--move-timeout must be"),
        (["script", "-", "--no-move", "--move-timeout", "5"], "--move-timeout is for bots that move"),
        (["irc-load", "--no-move"], "unknown option --no-move"),
        (["dance"], "expected a command"),
    ]

    @Test(arguments: mistakes)
    func refused(_ mistake: (arguments: [String], says: String)) throws {
        let bot = try ChildProcess(BuildPaths.product("chat-bot"), mistake.arguments + ["--ca", TestCertificates.ca])
        let finished = bot.finish(timeout: 10)
        #expect(finished.status == 2, "\(finished.errors)")
        #expect(finished.errors.contains(mistake.says), "\(finished.errors)")
    }
}

/// Bots scripting a moderated room (issue 13): register, claim, topic, invite-only, kick and ban,
/// with `expect` on the events and errors.
extension ChatBotEndToEndTests {
    /// The owner registers and claims #club, makes it invite-only and invites bob; carol is refused, bob gets in, is kicked,
    /// then banned; every expectation is met (status 0). (Registering hashes the password on a
    /// worker at idle priority: on a loaded machine that can take seconds, hence the long waits.)
    @Test func scriptedModeratedRoom() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let result = try runScript("""
            bot owner club {
                register owner-password
                expect account "registered" within 60s
                claim
                expect op from owner "owner"
                topic members only
                mode +invite
                expect mode "+invite"
                invite bob
                expect invite "club"
                dm bob ready
                dm carol ready
                expect msg from bob "in"
                kick bob behave
                expect kicked /bob behave/
                ban bob
                expect banned /bob/
                dm bob now try
            }
            bot bob {
                register bob-password
                expect account "registered" within 60s
                expect invite within 60s
                expect dm from owner "ready" within 60s
                join club
                say in
                expect kicked from owner /bob/
                expect dm from owner "now try"
                send-raw {"type":"join","room":"club"}
                expect error "banned"
            }
            bot carol {
                expect dm from owner "ready" within 60s
                send-raw {"type":"join","room":"club"}
                expect error "not-invited"
            }
            """, port: server.port)
        #expect(result.status == 0, "\(result.errors)")
    }
}
