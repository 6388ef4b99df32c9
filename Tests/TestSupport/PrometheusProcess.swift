import Foundation

/// A real Prometheus (Debian's `prometheus` package) on a free loopback port, scraping one
/// target every second into a temporary storage folder; stopped and removed by `stop()`.
public final class PrometheusProcess: Sendable {
    public let port: UInt16
    private let directory: String
    private let process: ChildProcess

    public struct NotReady: Error, CustomStringConvertible {
        public let description: String
    }

    /// `target` is HOST:PORT of a `/metrics` endpoint.
    public init(target: String) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-prometheus-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let configuration = """
            global:
              scrape_interval: 1s
              scrape_timeout: 1s
            scrape_configs:
              - job_name: qchat
                static_configs:
                  - targets: ['\(target)']
            """
        try configuration.write(toFile: directory + "/prometheus.yml", atomically: true, encoding: .utf8)
        port = try FreePort.tcp()
        process = try ChildProcess("/usr/bin/prometheus", ["--config.file=\(directory)/prometheus.yml", "--storage.tsdb.path=\(directory)/data",
                                                          "--web.listen-address=127.0.0.1:\(port)", "--log.level=warn"])
        let deadline = Date().addingTimeInterval(TestTime.scaled(60))
        while (try? HTTPProbe.get(port: port, "/-/ready"))?.status != 200 {
            guard process.isRunning, Date() < deadline else {
                let output = process.finish(timeout: 1).errors
                throw NotReady(description: "Prometheus did not become ready: \(output.suffix(2000))")
            }
            usleep(100_000)
        }
    }

    /// The value of an instant query with one result, or nil (no result yet, or several).
    public func value(of query: String) throws -> Double? {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        let encoded = query.addingPercentEncoding(withAllowedCharacters: allowed) ?? query
        let answer = try HTTPProbe.get(port: port, "/api/v1/query?query=\(encoded)")
        guard answer.status == 200, let object = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any],
              let data = object["data"] as? [String: Any], let results = data["result"] as? [[String: Any]], results.count == 1,
              let sample = results[0]["value"] as? [Any], sample.count == 2, let text = sample[1] as? String else { return nil }
        return Double(text)
    }

    /// Waits until `query` has the value `expected` (Prometheus's latest scrape caught up); the
    /// last value seen otherwise.
    public func waitFor(_ query: String, toEqual expected: Double, timeout: TimeInterval = 30) -> (reached: Bool, last: Double?) {
        let deadline = Date().addingTimeInterval(TestTime.scaled(timeout))
        var last: Double?
        while Date() < deadline {
            last = (try? value(of: query)) ?? last
            if last == expected { return (true, last) }
            usleep(250_000)
        }
        return (false, last)
    }

    public func stop() {
        process.terminate()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
