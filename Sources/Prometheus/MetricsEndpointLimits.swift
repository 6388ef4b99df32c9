import EventRuntime

/// What bounds the metrics endpoint, so scrapers can cost the chat nothing measurable: with
/// `maxConnections` open, a new connection takes the place of the oldest one still sending its
/// request (answered 503) or answered and not yet closed by its scraper, so connections that
/// hold a slot without asking cannot keep a real scrape out; when every connection is having
/// its answer written, the new one is answered 503 and closed at once; a request head over
/// `maxRequestBytes` is answered 431; a connection still open `timeout` after it was accepted is
/// closed (408 if its request never completed); a page is rebuilt at most once per `cacheLifetime`.
public struct MetricsEndpointLimits: Equatable, Sendable {
    public var maxConnections: Int
    public var maxRequestBytes: Int
    public var timeout: TimeSpan
    public var cacheLifetime: TimeSpan

    public init(maxConnections: Int = 64, maxRequestBytes: Int = 8192, timeout: TimeSpan = .seconds(10),
                cacheLifetime: TimeSpan = .seconds(1)) {
        self.maxConnections = maxConnections
        self.maxRequestBytes = maxRequestBytes
        self.timeout = timeout
        self.cacheLifetime = cacheLifetime
    }
}

/// What the metrics endpoint did since it started; it appears on its own page.
public struct MetricsEndpointStatistics: Sendable {
    /// Answers by status (200 for pages served).
    public internal(set) var answers: [HTTPStatus: Int] = [:]
    /// Connections closed when their time was up.
    public internal(set) var timeouts = 0
    /// Connections that ended before a whole request arrived.
    public internal(set) var abandoned = 0
    /// Pages built (the others were served from the cache).
    public internal(set) var pagesBuilt = 0
    /// accept failures (out of descriptors); accepting pauses briefly after one.
    public internal(set) var acceptErrors = 0
    /// Connections closed to make room for a new one with every slot taken: still sending their
    /// request (answered 503) or answered and not yet closed by their scraper.
    public internal(set) var displaced = 0
}
