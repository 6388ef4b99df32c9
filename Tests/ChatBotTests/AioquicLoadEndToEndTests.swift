import Foundation
import TestSupport
import Testing

/// tools/bench/aioquic_chat_load.py, the independent aioquic load driver of `make bench-aioquic`,
/// against a real chat-server: short runs that check the driver's accounting and, through it,
/// the server's conformance to PROTOCOL.md as a peer written by someone else sees it. `make deps`
/// installs the pinned aioquic (tools/interop/setup.sh), so the tests skip only where Python or
/// PyPI cannot give it.
@Suite("aioquic chat load end to end", .serialized)
struct AioquicLoadEndToEndTests {
    static var driver: String { BuildPaths.repository.appendingPathComponent("tools/bench/aioquic_chat_load.py").path }

    /// Runs the driver against `port` trusting `ca`; returns its exit status, output and JSON report.
    private static func run(port: UInt16, ca: String, _ arguments: [String]) throws -> (status: Int32, text: String, report: [String: Any]) {
        let python = try #require(AioquicVenv.python)
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("aioquic-load-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: json) }
        let process = try ChildProcess(python, [driver, "--port", String(port), "--ca", ca, "--json", json] + arguments)
        let finished = process.finish(timeout: 60)
        let data = (try? Data(contentsOf: URL(fileURLWithPath: json))) ?? Data()
        let report = (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
        return (finished.status, finished.output + "\n" + finished.errors, report)
    }

    /// Six aioquic clients in two rooms, 20 msgs/s over half a second of warm-up and a measured
    /// second: every message is acknowledged and reaches the two other members of its room once
    /// and in order, the server deviates in nothing from the protocol, and the report has the keys
    /// scripts/bench-aioquic.sh reads, with the markers it waits for on standard error.
    @Test(.enabled(if: AioquicVenv.python != nil, "aioquic cannot be installed here (tools/interop/setup.sh failed: see standard error)"))
    func shortLoadLosesNothing() throws {
        let server = try ChatServerProcess(ChatBotEndToEndTests.loadLimits)
        defer { server.stop() }
        let run = try Self.run(port: server.port, ca: TestCertificates.ca, [
            "--clients", "6", "--rooms", "2", "--rate", "20", "--size", "200", "--duration", "1", "--warmup", "0.5", "--drain", "3",
        ])
        #expect(run.status == 0, "\(run.text)")
        #expect(run.report["ok"] as? Bool == true, "\(run.text)")
        #expect(run.text.contains("connected 6/6 clients") && run.text.contains("drained"), "\(run.text)")
        let section = { (name: String) in run.report[name] as? [String: Any] ?? [:] }
        #expect(section("connect")["joined"] as? Int == 6)
        let messages = section("messages")
        // 20 a second over 1.5 s, of which the last second is measured.
        #expect(messages["sent"] as? Int == 30, "\(messages)")
        #expect(messages["sent_measured"] as? Int == 20, "\(messages)")
        #expect(messages["acknowledged"] as? Int == 30, "\(messages)")
        #expect(messages["unacknowledged"] as? Int == 0)
        let deliveries = section("deliveries")
        // Three members a room: each message reaches the two others.
        #expect(deliveries["expected"] as? Int == 60, "\(deliveries)")
        #expect(deliveries["received_all"] as? Int == 60, "\(deliveries)")
        #expect(deliveries["delivered"] as? Int == 40, "\(deliveries)")
        #expect(deliveries["lost"] as? Int == 0 && deliveries["duplicated"] as? Int == 0 && deliveries["out_of_order"] as? Int == 0)
        let latency = deliveries["latency_ms"] as? [String: Double] ?? [:]
        #expect((latency["p50"] ?? 0) > 0 && (latency["p99"] ?? 0) >= (latency["p50"] ?? 0), "\(latency)")
        #expect(section("conformance")["deviations"] as? Int == 0, "\(section("conformance"))")
        // aioquic acknowledges what it receives: at least a datagram sent per delivery.
        #expect((section("datagrams")["sent_per_delivery"] as? Double ?? 0) >= 1, "\(section("datagrams"))")
    }

    /// The driver's framing and conformance records (tools/bench/aioquic_chat_load_test.py):
    /// objects split at every byte come out whole, a missing LF or back-to-back objects, bad JSON,
    /// invalid UTF-8 and an oversized message are each recorded as the deviation they are.
    @Test(.enabled(if: AioquicVenv.python != nil, "aioquic cannot be installed here (tools/interop/setup.sh failed: see standard error)"))
    func framingRecordsDeviations() throws {
        let python = try #require(AioquicVenv.python)
        let tests = BuildPaths.repository.appendingPathComponent("tools/bench/aioquic_chat_load_test.py").path
        let result = try ChildProcess(python, [tests, "-v"]).finish(timeout: 60)
        #expect(result.status == 0, "\(result.output)\n\(result.errors)")
        #expect(result.errors.contains("Ran 9 tests") && result.errors.contains("OK"), "\(result.errors)")
    }

    /// The driver verifies the server's certificate: trusting another CA, no client connects,
    /// nothing is sent and the run fails.
    @Test(.enabled(if: AioquicVenv.python != nil, "aioquic cannot be installed here (tools/interop/setup.sh failed: see standard error)"))
    func untrustedServerIsRefused() throws {
        let server = try ChatServerProcess(ChatBotEndToEndTests.loadLimits)
        defer { server.stop() }
        let run = try Self.run(port: server.port, ca: TestCertificates.otherCA, [
            "--clients", "2", "--rate", "20", "--duration", "1", "--warmup", "0", "--connect-timeout", "20",
        ])
        #expect(run.status == 1, "\(run.text)")
        #expect(run.report["ok"] as? Bool == false)
        let connect = run.report["connect"] as? [String: Any] ?? [:]
        #expect(connect["joined"] as? Int == 0 && connect["failed"] as? Int == 2, "\(connect)")
        #expect((run.report["messages"] as? [String: Any])?["sent"] as? Int == 0)
        #expect(run.text.contains("certificate"), "the reason is given: \(run.text)")
    }
}
