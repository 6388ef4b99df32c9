import CLIOptions
import Prometheus
import QuicEngine

/// The `--metrics*` settings: where the Prometheus endpoint listens (nowhere by default) and the
/// bounds that keep scrapers, well-meaning or not, from costing the chat anything.
struct MetricsOptions: Equatable {
    /// nil: no metrics endpoint.
    var address: SocketAddress?
    /// Scrape connections served at once; one more is answered 503 and closed.
    var maxConnections = 64
    /// Bytes of one request head at most; more is answered 431.
    var maxRequestBytes = 8192
    /// A scrape connection is closed this long after it was accepted, whatever it is doing.
    var timeout = TimeSpan.seconds(10)
    /// A page built less than this long ago is served again instead of being rebuilt.
    var cacheLifetime = TimeSpan.seconds(1)

    init() {}

    init(_ options: ServerSettings) throws(UsageError) {
        if let value = options.string("metrics") {
            guard let address = MetricsOptions.address(value) else {
                throw options.invalid("metrics", "must be PORT, HOST:PORT or [IPv6]:PORT, such as 127.0.0.1:9464, not '\(value)'")
            }
            self.address = address
        }
        maxConnections = try options.integer("metrics-connections", default: maxConnections, in: 1...100_000)
        maxRequestBytes = try options.integer("metrics-request-bytes", default: maxRequestBytes, in: 256...(1 << 20))
        timeout = TimeSpan(nanoseconds: UInt64(try options.double("metrics-timeout", default: 10, in: 0.1...3600) * 1e9))
        cacheLifetime = TimeSpan(nanoseconds: UInt64(try options.double("metrics-cache", default: 1, in: 0...3600) * 1e9))
    }

    var limits: MetricsEndpointLimits {
        MetricsEndpointLimits(maxConnections: maxConnections, maxRequestBytes: maxRequestBytes, timeout: timeout, cacheLifetime: cacheLifetime)
    }

    /// `9464` (loopback), `127.0.0.1:9464`, `localhost:9464`, `[::1]:9464`.
    static func address(_ text: String) -> SocketAddress? {
        if let port = UInt16(text) { return SocketAddress(host: "127.0.0.1", port: port) }
        var host: Substring
        var portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, let port = UInt16(portText) else { return nil }
        return SocketAddress.resolve(host: String(host), port: port)
    }
}
