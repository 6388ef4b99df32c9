import Foundation
import Glibc
import SplitMix
import TestSupport
import Testing

/// The `--metrics` endpoint: GET /metrics in the Prometheus format, a plain HTTP error for
/// anything else, and every scraper bounded in number, size and time, so none can disturb the chat.
@Suite("chat-server metrics endpoint")
struct MetricsEndpointTests {
    private static func server(_ extra: [String] = []) throws -> (ChatServerProcess, UInt16) {
        let server = try ChatServerProcess(["--metrics", "127.0.0.1:0", "--log-level", "info"] + extra)
        return (server, try #require(server.metricsPort))
    }

    /// GET /metrics answers 200 with the Prometheus text format (promtool's lint passes); Connection: close, the length exact.
    @Test func servesThePage() throws {
        let (server, port) = try Self.server()
        defer { server.stop() }
        let answer = try HTTPProbe.get(port: port)
        #expect(answer.status == 200)
        #expect(answer.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        #expect(answer.headers["connection"] == "close")
        #expect(answer.headers["content-length"] == String(answer.body.utf8.count))
        for family in ["qchat_connections", "qchat_clients", "qchat_rooms", "qchat_room_members", "qchat_handshakes_total",
                       "qchat_handshakes_failed_total", "qchat_messages_received_total", "qchat_deliveries_total",
                       "qchat_errors_sent_total", "qchat_closes_total", "qchat_datagrams_relayed_total", "qchat_datagrams_dropped_total",
                       "qchat_udp_received_bytes_total", "qchat_udp_sent_bytes_total", "qchat_history_store_seconds",
                       "qchat_delivery_latency_seconds", "qchat_quic_smoothed_rtt_seconds", "qchat_quic_stream_packets_lost_total",
                       "qchat_retries_sent_total", "qchat_stateless_resets_sent_total", "process_cpu_seconds_total",
                       "process_resident_memory_bytes", "process_open_fds"] {
            #expect(answer.body.contains("# TYPE \(family) "), "no \(family)")
        }
        let lint = try PromTool.checkMetrics(answer.body)
        #expect(lint.status == 0, "\(lint.output)")
    }

    /// Another path is 404, another method 405 with Allow: GET, another version 505, a malformed head 400, one too large 431; each a plain-text answer, then closed.
    @Test func refusesWhatIsNotGetMetrics() throws {
        let (server, port) = try Self.server(["--metrics-request-bytes", "1024"])
        defer { server.stop() }
        let cases: [(request: String, status: Int)] = [
            ("GET / HTTP/1.1\r\nHost: x\r\n\r\n", 404),
            ("GET /metrics.json HTTP/1.1\r\nHost: x\r\n\r\n", 404),
            ("POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", 405),
            ("HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 405),
            ("GET /metrics HTTP/2.0\r\nHost: x\r\n\r\n", 505),
            ("GET /metrics HTTP/1.1\r\n\r\n", 400),
            ("GET /metrics HTTP/1.1\nHost: x\n\n", 400),
            ("hello there\r\n\r\n", 400),
            ("GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
            ("GET /metrics HTTP/1.1\r\nHost: x\r\nX-Pad: " + String(repeating: "a", count: 2000) + "\r\n\r\n", 431),
        ]
        for (request, status) in cases {
            let answer = try HTTPProbe.exchange(port: port, request)
            #expect(answer.status == status, "\(request.prefix(60).debugDescription): \(answer.status)")
            #expect(answer.headers["content-type"] == "text/plain; charset=utf-8")
            #expect(answer.headers["connection"] == "close")
            #expect(!answer.body.isEmpty)
            if status == 405 { #expect(answer.headers["allow"] == "GET") }
        }
        // Still serving.
        #expect(try HTTPProbe.get(port: port).status == 200)
    }

    /// A scraper that sends half a request, or nothing, is answered 408 and closed when its time is up; meanwhile others are served at once.
    @Test func slowClientsAreTimedOut() throws {
        let (server, port) = try Self.server(["--metrics-timeout", "1", "--metrics-cache", "0"])
        defer { server.stop() }
        let half = try HTTPProbe(port: port)
        try half.send("GET /metr")
        let silent = try HTTPProbe(port: port)
        #expect(try HTTPProbe.get(port: port).status == 200)
        let halfAnswer = half.readToEnd(timeout: 10).flatMap(HTTPProbe.parse)
        let silentAnswer = silent.readToEnd(timeout: 10).flatMap(HTTPProbe.parse)
        #expect(halfAnswer?.status == 408)
        #expect(silentAnswer?.status == 408)
        let metrics = ScrapedMetrics(try HTTPProbe.get(port: port).body)
        #expect(metrics["qchat_metrics_timeouts_total"] == 2)
        #expect(metrics[#"qchat_metrics_answers_total{code="408"}"#] == 2)
    }

    /// Out of file descriptors (a limit of 32), accepting fails and pauses instead of spinning; the chat goes on, and once the scrapers are gone, scrapes are served again.
    @Test func runningOutOfDescriptorsPausesAccepting() async throws {
        let server = try ChatServerProcess(exactly: ["--nofile=32", BuildPaths.product("chat-server"),
                                                     "--port", "0", "--cert", TestCertificates.serverCertificate, "--key", TestCertificates.serverKey,
                                                     "--metrics", "127.0.0.1:0", "--metrics-cache", "0"], executable: "/usr/bin/prlimit")
        defer { server.stop() }
        let port = try #require(server.metricsPort)
        var holders = try (0..<40).map { _ in try HTTPProbe(port: port) }
        let joined = try await onDedicatedThread { () -> Bool in
            let world = try ChatTestWorld(port: server.port)
            let alice = try world.connectAndJoin("alice")
            return world.joined(alice)
        }
        #expect(joined)
        holders.removeAll()
        let served = HTTPProbe.get(port: port, until: 200)
        #expect(served?.status == 200)
        #expect(ScrapedMetrics(served?.body ?? "")["qchat_metrics_accept_errors_total"].map { $0 >= 1 } == true, "\(served?.body.count ?? 0)")
    }

    /// Random bytes, NULs, endless headers and resets from 300 connections get 400s, 431s or a close, and leave the endpoint and the chat serving.
    @Test func garbageLeavesItServing() async throws {
        let (server, port) = try Self.server(["--metrics-timeout", "2"])
        defer { server.stop() }
        var random = SplitMix64(seed: 17)
        var statuses: [Int: Int] = [:]
        for index in 0..<300 {
            let probe = try HTTPProbe(port: port)
            let length = Int(random.next() % 12_000) + 1
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if index % 3 == 0 { bytes = Array("GET /metrics HTTP/1.1\r\nHost: x\r\n".utf8) + bytes }
            try? probe.send(bytes)
            if index % 10 == 0 { continue }  // dropped without reading: a reset, or a close with unread data
            if let answer = probe.readToEnd(timeout: 10).flatMap(HTTPProbe.parse) { statuses[answer.status, default: 0] += 1 }
        }
        #expect(Set(statuses.keys).isSubset(of: [400, 408, 431]), "\(statuses)")
        #expect(try HTTPProbe.get(port: port).status == 200)
        let joined = try await onDedicatedThread { () -> Bool in
            let world = try ChatTestWorld(port: server.port)
            let alice = try world.connectAndJoin("alice")
            return world.joined(alice)
        }
        #expect(joined)
        #expect(server.process.isRunning)
    }

    /// 1,000 scrapers at once, twice, while ten clients chat: every scraper gets 200 or 503, the chat loses nothing, and the pages built stay few (the cache).
    @Test func thousandConcurrentScrapersDuringChat() async throws {
        let (server, port) = try Self.server(["--flood-burst", "1000", "--flood-rate", "1000"])
        defer { server.stop() }
        let quiet = try BotRun.run("load", port: server.port, ["--clients", "10", "--rooms", "1", "--rate", "40", "--duration", "4", "--warmup", "1"])
        let load = try BotRun("load", port: server.port, ["--clients", "10", "--rooms", "1", "--rate", "40", "--duration", "4", "--warmup", "1"])
        _ = load.waitForLine(timeout: 30) { $0.contains("joined") || $0.contains("sent") }
        let storms = [ScrapeStorm.run(port: port, connections: 1000), ScrapeStorm.run(port: port, connections: 1000)]
        load.finish()
        let metrics = ScrapedMetrics(try HTTPProbe.get(port: port).body)
        print("quiet: \(quiet.summary)")
        print("scraped: \(load.summary); storms: \(storms.map(\.description).joined(separator: "; "))")
        #expect(quiet.lostNothing, "\(quiet.text)")
        #expect(load.status == 0 && load.lostNothing, "\(load.text)")
        for storm in storms {
            #expect(storm.failures == 0 && storm.unfinished == 0, "\(storm)")
            #expect(storm.statuses.keys.allSatisfy { $0 == 200 || $0 == 503 }, "\(storm)")
            #expect((storm.statuses[200] ?? 0) >= 1, "\(storm)")
        }
        let built = try #require(metrics["qchat_metrics_pages_built_total"])
        let served = try #require(metrics[#"qchat_metrics_answers_total{code="200"}"#])
        #expect(built < served, "built \(built) pages for \(served) answers")
    }
}

/// `promtool check metrics` (Debian's prometheus package) on a page.
enum PromTool {
    static func checkMetrics(_ page: String) throws -> (status: Int32, output: String) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-\(UUID().uuidString).txt").path
        try page.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try ChildProcess("/usr/bin/promtool", ["check", "metrics"], standardInput: file).finish(timeout: 30)
        return (result.status, result.output + result.errors)
    }
}

extension MetricsEndpointTests {
    /// The file families count what a scripted upload and download did: one upload stored, one
    /// download begun, 3 MiB each way, nothing moving once both are done (promtool passes).
    @Test func fileTransfersAreCounted() throws {
        // No page cache: the transfer may be over within the second a cached page is served.
        let (server, port) = try Self.server(["--metrics-cache", "0"])
        defer { server.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-metrics-in-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-files-\(UUID().uuidString).bot").path
        try FileBotScripts.uploadThenDownload(size: "3M", into: folder).write(toFile: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: script) }
        let before = try HTTPProbe.get(port: port).body
        #expect(Self.sample(before, #"qchat_file_uploads_total{outcome="stored"}"#) == 0)
        let bot = try ChildProcess(BuildPaths.product("chat-bot"), ["script", script, "--port", String(server.port), "--ca", TestCertificates.ca])
        let finished = bot.finish(timeout: 60)
        #expect(finished.status == 0, "\(finished.errors)")
        let page = try HTTPProbe.get(port: port).body
        #expect(Self.sample(page, #"qchat_file_uploads_total{outcome="stored"}"#) == 1)
        #expect(Self.sample(page, #"qchat_file_uploads_total{outcome="bad_checksum"}"#) == 0)
        #expect(Self.sample(page, "qchat_file_downloads_total") == 1)
        #expect(Self.sample(page, #"qchat_file_bytes_total{direction="upload"}"#) == Double(3 << 20))
        #expect(Self.sample(page, #"qchat_file_bytes_total{direction="download"}"#) == Double(3 << 20))
        #expect(Self.sample(page, #"qchat_file_transfers{direction="upload"}"#) == 0)
        #expect(Self.sample(page, #"qchat_file_transfers{direction="download"}"#) == 0)
        let lint = try PromTool.checkMetrics(page)
        #expect(lint.status == 0, "\(lint.output)")
    }

    /// The value of the sample written exactly `series` (name and labels) on the page.
    static func sample(_ page: String, _ series: String) -> Double? {
        for line in page.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }
}
