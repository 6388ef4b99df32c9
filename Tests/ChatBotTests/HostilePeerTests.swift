import Foundation
import TestSupport
import Testing

/// Hostile-peer scenarios that need the real server and the bots: one misbehaving client, and
/// `chat-bot load` measuring what everyone else gets meanwhile.
@Suite("Hostile peers against a real server", .serialized)
struct HostilePeerTests {
    /// Scenario 8: a client flooding 1,000 messages a second (and reconnecting at once each time
    /// it is thrown out) gets `rate-limited`, then FLOODING, on every connection; ten other
    /// clients chatting at the default limits lose nothing and their latency stays where it was
    /// without the flood. The limits are the server's defaults: burst 20, 5 a second, 10 strikes.
    @Test func flooderIsRateLimitedThenClosedWhileOthersAreServed() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let load = ["--clients", "10", "--rooms", "1", "--rate", "20", "--duration", "6", "--warmup", "1"]
        let quiet = try BotRun.run("load", port: server.port, load)
        let flooder = try BotRun("flood", port: server.port, ["--rate", "1000", "--duration", "10", "--reconnect", "--room", "load0"])
        let flooded = try BotRun.run("load", port: server.port, load)
        flooder.finish(timeout: 30)

        for run in [quiet, flooded] {
            #expect(run.status == 0, "\(run.text)")
            #expect(run.lostNothing, "\(run.deliveries)")
            #expect(run.section("messages")["rate_limited"] as? Int == 0)
        }
        let closes = flooder.section("closes") as? [String: Int] ?? [:]
        let flooding = flooder.section("flooding")
        #expect(flooder.status == 0, "\(flooder.text)")
        #expect((closes["FLOODING"] ?? 0) >= 10, "\(flooder.text)")
        // Every connection but the last (which quits when the run ends) was closed for flooding,
        // and only after its 10 `rate-limited` errors.
        #expect(closes.filter { $0.key != "FLOODING" && $0.key != "NO_ERROR" }.isEmpty, "\(closes)")
        #expect(flooding["fewest_rate_limited_before"] as? Int == 10, "\(flooder.text)")
        // Each connection had the burst and then nothing: 20 accepted, plus the 5/s trickle.
        let connections = flooder.report["connections"] as? Int ?? 0
        let accepted = flooder.report["acknowledged"] as? Int ?? .max
        #expect(accepted <= connections * 21, "\(flooder.text)")

        let before = quiet.latency, during = flooded.latency
        let p50 = (before["p50"] ?? 0, during["p50"] ?? .infinity), p99 = (before["p99"] ?? 0, during["p99"] ?? .infinity)
        print("scenario 8: quiet: \(quiet.summary); flooded: \(flooded.summary); flooder: \(flooder.text)")
        // Generous bounds: the two runs follow each other on a machine that runs other tests
        // meanwhile. A server that stalled on the flood would be off by far more.
        #expect(p50.1 <= 2 * p50.0 + 5, "p50 \(p50)")
        #expect(p99.1 <= max(4 * p99.0, p99.0 + 50), "p99 \(p99)")
    }
}
