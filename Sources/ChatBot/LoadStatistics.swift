import QuicEngine
/// What the load generator counts while it runs. "Measured" means intended for the measured
/// window (after the warm-up); warm-up traffic is sent and received but not counted.
struct LoadStatistics {
    // Connections
    var connectTime = LatencyHistogram()
    var connectsStarted = 0
    var initialJoined = 0
    /// First connections that joined, by the server they reached (its label).
    var joinedPerServer: [String: Int] = [:]
    var initialFailed = 0
    var churnConnects = 0
    var churnStarted = 0
    var closedUnexpectedly = 0
    /// First connections tried again after a failed handshake, as a real client would.
    var connectRetries = 0
    var firstCloseReasons: [String] = []
    /// Moves done (a lost connection replaced by one to the next server, the client in its room
    /// again), each from the loss to its own `joined` on the new connection.
    var moves = 0
    var moveTime = LatencyHistogram()
    /// Why connections were lost, each reason with how many (the first five reasons).
    var moveReasons: [(reason: String, count: Int)] = []
    /// Messages sent again after a move (unacknowledged when the connection was lost).
    var resent = 0

    // Messages
    var sent = 0
    var sentMeasured = 0
    var acknowledged = 0
    var pendingMeasured = 0
    var rateLimited = 0
    /// `unavailable` answers to room messages (each sent again with its id), and messages the
    /// server refused for good (any other error): those are lost to the run, which fails.
    var unavailable = 0
    var refused = 0
    var errors: [String: Int] = [:]
    var skippedNoClient = 0
    /// How far behind its schedule the generator sent, at worst (its own health, in ns).
    var worstSendLag: UInt64 = 0

    /// Every load message received, warm-up and drain included (the server's whole work).
    var deliveredAll = 0

    // Deliveries of measured messages
    var latency = LatencyHistogram()
    var delivered = 0
    var duplicates = 0
    var outOfOrder = 0
    /// Measured deliveries that came in the replay of a re-join after a move (counted in
    /// `delivered` too), and replayed messages the receiver had already (counted nowhere else).
    var replayedDelivered = 0
    var replayedAlreadySeen = 0

    // Typing
    /// File uploads: started, done, failed, bytes done, and the span from the first start to the
    /// last end (the throughput's denominator).
    var filesStarted = 0
    var filesCompleted = 0
    var filesFailed = 0
    var fileBytes: Int64 = 0
    var firstFileStart: MonotonicTime?
    var lastFileEnd: MonotonicTime?
    var typingSent = 0
    var typingRefused = 0
    var typingExpected = 0
    var typingReceived = 0
    var typingReceivedAll = 0
    var typingLatency = LatencyHistogram()

    // The last second, for the progress line
    var recentLatency = LatencyHistogram()
    var recentSent = 0
    var recentDelivered = 0
    var recentTyping = 0

    mutating func startSecond() {
        recentLatency.reset()
        recentSent = 0
        recentDelivered = 0
        recentTyping = 0
    }
}
