import Glibc
import QuicEngine

/// The figures of a finished load run, computed once from what the generator counted; printed as
/// a table (`table()`) and as JSON (`json()`).
struct LoadReport {
    /// A distribution in milliseconds.
    struct Distribution {
        var count: UInt64
        var p50, p90, p99, p999, max, mean: Double

        init(_ histogram: LatencyHistogram) {
            count = histogram.count
            p50 = LoadReport.milliseconds(histogram.percentile(50))
            p90 = LoadReport.milliseconds(histogram.percentile(90))
            p99 = LoadReport.milliseconds(histogram.percentile(99))
            p999 = LoadReport.milliseconds(histogram.percentile(99.9))
            max = LoadReport.milliseconds(histogram.count == 0 ? 0 : histogram.maximum)
            mean = (histogram.mean / 1e4).rounded() / 100
        }
    }

    var options: LoadOptions
    /// The command that ran ("chat-bot load", "chat-bot irc-load").
    var name: String
    var connect: Distribution
    var connectsStarted: Int
    var joined: Int
    var connectFailures: Int
    var connectSeconds: Double
    var churnConnects: Int
    var connectRetries: Int
    /// First connections that joined, per server, in the servers' order.
    var joinedPerServer: [(server: String, joined: Int)]
    var closedUnexpectedly: Int
    var closeReasons: [String]
    /// Moves done, their time from the loss to the client's own `joined` on its new connection,
    /// clients that had not come back by the end, the first losses, and the messages sent again.
    var moves: Int
    var moveTime: Distribution
    var unfinishedMoves: Int
    var moveReasons: [(reason: String, count: Int)]
    var resent: Int

    var sent: Int
    var sentMeasured: Int
    var acknowledged: Int
    var unacknowledgedMeasured: Int
    var rateLimited: Int
    /// Messages answered `unavailable` (sent again), refused for good, and never acknowledged at
    /// the end (warm-up ones included): a run that lost any fails.
    var unavailable: Int
    var refused: Int
    var unacknowledged: Int
    var errors: [String: Int]
    var skippedNoClient: Int
    var worstSendLagMilliseconds: Double

    var expected = 0
    var delivered: Int
    var deliveredAll: Int
    var deliveredPerSecond: Double
    var lost = 0
    var duplicates: Int
    var outOfOrder: Int
    var replayedDelivered: Int
    var replayedAlreadySeen: Int
    var latency: Distribution

    var typingSent: Int
    var typingRefused: Int
    var typingExpected: Int
    var typingReceived: Int
    var typingReceivedAll: Int
    var typingLatency: Distribution
    var botCPUSeconds: Double
    var filesStarted: Int
    var filesCompleted: Int
    var filesFailed: Int
    var fileBytes: Int64
    /// Bytes of the completed uploads over the span from the first start to the last end, MiB/s.
    var fileThroughput: Double

    init(run: LoadRun) {
        let stats = run.stats
        options = run.options
        name = run.name
        connect = Distribution(stats.connectTime)
        connectsStarted = stats.connectsStarted
        joined = stats.initialJoined
        connectFailures = stats.initialFailed
        connectSeconds = LoadReport.seconds((run.connectsDone ?? .now()) - run.started)
        churnConnects = stats.churnConnects
        connectRetries = stats.connectRetries
        joinedPerServer = run.serverLabels.map { ($0, stats.joinedPerServer[$0] ?? 0) }
        closedUnexpectedly = stats.closedUnexpectedly
        closeReasons = stats.firstCloseReasons
        moves = stats.moves
        moveTime = Distribution(stats.moveTime)
        unfinishedMoves = run.unfinishedMoves
        moveReasons = stats.moveReasons
        resent = stats.resent
        sent = stats.sent
        sentMeasured = stats.sentMeasured
        acknowledged = stats.acknowledged
        unacknowledgedMeasured = stats.pendingMeasured
        rateLimited = stats.rateLimited
        unavailable = stats.unavailable
        refused = stats.refused
        unacknowledged = run.unacknowledged
        errors = stats.errors
        skippedNoClient = stats.skippedNoClient
        worstSendLagMilliseconds = LoadReport.milliseconds(stats.worstSendLag)
        delivered = stats.delivered
        deliveredAll = stats.deliveredAll
        deliveredPerSecond = (Double(stats.delivered) / run.options.duration * 10).rounded() / 10
        duplicates = stats.duplicates
        outOfOrder = stats.outOfOrder
        replayedDelivered = stats.replayedDelivered
        replayedAlreadySeen = stats.replayedAlreadySeen
        latency = Distribution(stats.latency)
        typingSent = stats.typingSent
        typingRefused = stats.typingRefused
        typingExpected = stats.typingExpected
        typingReceived = stats.typingReceived
        typingReceivedAll = stats.typingReceivedAll
        typingLatency = Distribution(stats.typingLatency)
        filesStarted = stats.filesStarted
        filesCompleted = stats.filesCompleted
        filesFailed = stats.filesFailed
        fileBytes = stats.fileBytes
        if let first = stats.firstFileStart, let last = stats.lastFileEnd, last > first {
            let mebibytes = Double(stats.fileBytes) / 1_048_576
            let seconds: Double = (last - first).seconds
            fileThroughput = (mebibytes / seconds * 10).rounded() / 10
        } else {
            fileThroughput = 0
        }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        botCPUSeconds = (cpu * 100).rounded() / 100
        var ledger = run.ledger
        ledger.prepare()
        for receiver in run.receivers {
            let tally = ledger.tally(receiver)
            expected += tally.expected
            lost += tally.missing
        }
    }

    /// Nothing lost, doubled or reordered, every connection came up, and stayed up or moved and
    /// came back; every message sent was acknowledged (none refused, none left unanswered).
    var passed: Bool {
        lost == 0 && duplicates == 0 && outOfOrder == 0 && connectFailures == 0 && closedUnexpectedly == 0 && unfinishedMoves == 0
            && filesFailed == 0 && refused == 0 && unacknowledged == 0
    }

    var typingRatio: Double { typingExpected == 0 ? 0 : (Double(typingReceived) / Double(typingExpected) * 1000).rounded() / 1000 }

    static func milliseconds(_ nanoseconds: UInt64) -> Double { (Double(nanoseconds) / 1e4).rounded() / 100 }

    static func seconds(_ duration: TimeSpan) -> Double { (duration.seconds * 100).rounded() / 100 }
}
