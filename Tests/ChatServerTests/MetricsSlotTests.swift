import Foundation
import TestSupport
import Testing

/// Connections that hold a metrics slot without asking for anything cannot keep real scrapes
/// out (issue 23 item 15): with every slot taken, a new connection takes the place of the
/// oldest one still sending its request (answered 503) or answered and not yet closed.
@Suite("chat-server metrics endpoint: slots", .serialized)
struct MetricsSlotTests {
    private static func server(_ extra: [String] = []) throws -> (ChatServerProcess, UInt16) {
        let server = try ChatServerProcess(["--metrics", "127.0.0.1:0", "--log-level", "info", "--metrics-cache", "0"] + extra)
        return (server, try #require(server.metricsPort))
    }

    /// 64 connections trickling a request head a byte every 100 ms take every slot (the
    /// default 64); 25 real scrapes after them are all served. Before, 24 of 25 got 503.
    @Test func tricklingConnectionsDoNotKeepScrapesOut() throws {
        let (server, port) = try Self.server()
        defer { server.stop() }
        let attack = try TricklingScrapers(port: port, count: 64)
        defer { attack.stop() }
        // Once the server holds all 64, a scrape finds every slot taken: 503 before the fix,
        // the 64 connections counted on the page after it.
        let isFull = { (answer: HTTPProbe.Answer) in
            answer.status == 503 || ScrapedMetrics(answer.body)["qchat_metrics_connections"] == 64
        }
        let full = HTTPProbe.get(port: port, timeout: 10, until: isFull)
        #expect(full.map(isFull) == true, "the server never held the 64 connections")
        var statuses: [Int: Int] = [:]
        var last: HTTPProbe.Answer?
        for _ in 0..<25 {
            let answer = try? HTTPProbe.get(port: port)
            statuses[answer?.status ?? 0, default: 0] += 1
            if answer?.status == 200 { last = answer }
        }
        #expect(statuses == [200: 25], "\(statuses)")
        let metrics = ScrapedMetrics(last?.body ?? "")
        #expect(metrics["qchat_metrics_displaced_total"].map { $0 >= 1 } == true)
        #expect(metrics["qchat_metrics_connections"].map { $0 <= 64 } == true)
    }

    /// With --metrics-connections 3 and three connections that sent nothing, a fourth is served
    /// and the oldest of the three is answered 503 and closed; the limit holds (3 open).
    @Test func aNewConnectionTakesTheOldestIdleSlot() throws {
        let (server, port) = try Self.server(["--metrics-connections", "3"])
        defer { server.stop() }
        let holders = try (0..<3).map { _ in try HTTPProbe(port: port) }
        let served = HTTPProbe.get(port: port, timeout: 10) { ScrapedMetrics($0.body)["qchat_metrics_displaced_total"] == 1 }
        #expect(served?.status == 200)
        #expect(ScrapedMetrics(served?.body ?? "")["qchat_metrics_connections"] == 3)
        let oldest = holders[0].readToEnd(timeout: 10).flatMap(HTTPProbe.parse)
        #expect(oldest?.status == 503)
        #expect(ScrapedMetrics(served?.body ?? "")[#"qchat_metrics_answers_total{code="503"}"#] == 1)
    }

    /// Connections that asked and never close (answered, waiting for the scraper's close) are
    /// displaced too, oldest first, without an answer of their own: theirs was sent.
    @Test func answeredConnectionsThatStayOpenAreDisplaced() throws {
        let (server, port) = try Self.server(["--metrics-connections", "3"])
        defer { server.stop() }
        let holders = try (0..<3).map { _ in try HTTPProbe(port: port) }
        for holder in holders { try holder.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n") }
        let scrapes = (0..<6).map { _ in try? HTTPProbe.get(port: port) }
        #expect(scrapes.map { $0?.status ?? 0 } == Array(repeating: 200, count: 6))
        #expect(ScrapedMetrics(scrapes.last??.body ?? "")["qchat_metrics_displaced_total"].map { $0 >= 1 } == true)
        // Each holder got its whole page, displaced or not.
        for holder in holders { #expect(holder.readToEnd(timeout: 10).flatMap(HTTPProbe.parse)?.status == 200) }
    }
}
