import Foundation
import TestSupport
import Testing

/// A real Prometheus, started by the test on loopback, scrapes chat-server during a chat-bot
/// load; what it stored, read back through its HTTP API, is what the load did.
@Suite("Prometheus scrapes chat-server")
struct PrometheusScrapeTests {
    /// Messages sent, acknowledgements and deliveries as Prometheus stored them equal the load's own counts; the page passes promtool check metrics.
    @Test(.standaloneOnly("compares the first node's metrics with the whole load, which is spread over the nodes"))
    func prometheusSeesWhatTheLoadDid() async throws {
        let server = try ChatServerProcess(["--metrics", "127.0.0.1:0", "--flood-burst", "10000", "--flood-rate", "10000",
                                            "--log-level", "info"])
        defer { server.stop() }
        let metricsPort = try #require(server.metricsPort)
        let prometheus = try PrometheusProcess(target: "127.0.0.1:\(metricsPort)")
        defer { prometheus.stop() }
        let up = prometheus.waitFor("up", toEqual: 1)
        #expect(up.reached, "Prometheus's up is \(String(describing: up.last))")

        let load = try BotRun.run("load", port: server.port, ["--clients", "20", "--rooms", "2", "--rate", "50", "--duration", "4",
                                                              "--warmup", "1", "--typing", "20"])
        #expect(load.status == 0 && load.lostNothing, "\(load.text)")
        let messages = load.section("messages")
        let sent = try #require(messages["sent"] as? Int)
        let acknowledged = try #require(messages["acknowledged"] as? Int)
        let received = try #require(load.deliveries["received_all"] as? Int)
        #expect(sent > 0 && acknowledged == sent)

        let checks: [(query: String, expected: Int)] = [
            (#"qchat_messages_received_total{type="msg"}"#, sent),
            (#"qchat_deliveries_total{type="ack"}"#, acknowledged),
            (#"qchat_deliveries_total{type="msg"}"#, received),
            (#"qchat_messages_received_total{type="join"}"#, 20),
        ]
        for check in checks {
            let seen = prometheus.waitFor(check.query, toEqual: Double(check.expected))
            #expect(seen.reached, "\(check.query): Prometheus has \(String(describing: seen.last)), the load says \(check.expected)")
        }
        // What went through the engine is there too.
        #expect(try prometheus.value(of: "qchat_udp_received_bytes_total").map { $0 > 0 } == true)
        #expect(try prometheus.value(of: "qchat_delivery_latency_seconds_count").map { $0 >= Double(received) } == true)
        #expect(try prometheus.value(of: "sum(qchat_handshakes_total)").map { $0 >= 20 } == true)

        let lint = try PromTool.checkMetrics(try HTTPProbe.get(port: metricsPort).body)
        #expect(lint.status == 0, "\(lint.output)")
    }
}
