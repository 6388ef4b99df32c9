import ChatProtocol
import ChatServerCore
import Prometheus
import QuicEngine

/// The glue's figures for the metrics page: plain counters and histograms updated on the loop
/// thread as things happen (no locks: the loop owns them), read when a page is built. What the
/// engine, the core and the process know is read from them at that moment instead.
///
/// Features to come add their figures here and their families in `ChatServerApp+MetricsPage`
/// (the cluster's store latency, gaps filled and node count, once clustering exists), so the page
/// shows a family only where its feature runs.
final class ServerMetrics {
    /// Messages clients sent, decoded, by type; `malformed` the ones that did not decode.
    var received = MessageTypeCounts()
    var malformedReceived = 0
    /// Typing datagrams clients sent.
    var datagramsReceived = 0
    /// Messages queued to clients, by type.
    var delivered = MessageTypeCounts()
    var deliveredTotal = 0
    /// Connections the server closed, by code (FLOODING, SLOW_CONSUMER, KICKED, ...).
    var closes: [CloseCode: Int] = [:]
    /// Connections that ended before their handshake completed, by why.
    var handshakeFailures: [String: Int] = [:]
    /// Typing datagrams relayed, and those the engine refused (queue full, peer without datagrams).
    var datagramsRelayed = 0
    var datagramsDropped = 0
    var historyAppend = PrometheusHistogram()
    var historyRead = PrometheusHistogram()
    /// From the moment a message's bytes reached the glue to the flush of the packets carrying
    /// what it caused, once per message queued.
    var deliveryLatency = PrometheusHistogram()
    /// Messages whose results wait for the flush that ends this loop round.
    private var awaitingFlush: [(received: MonotonicTime, deliveries: Int)] = []
    /// Uploads that ended, by outcome label (`uploadOutcome`); downloads begun.
    var uploadsEnded: [String: Int] = [:]
    var downloadsStarted = 0
    /// File streams given up for making no progress (`--file-stall-timeout`).
    var fileStreamsStalled = 0
    /// File body bytes written to disk for uploads, and handed to streams for downloads.
    var fileBytesReceived = 0
    var fileBytesSent = 0
    var reloadsSucceeded = 0
    var reloadsFailed = 0
    /// Unix seconds of the last reload that took effect (the start counts as one).
    var lastReloadTime: Double

    init(startTime: Double) {
        lastReloadTime = startTime
    }

    func count(_ event: ChatStreamEvent) {
        switch event {
        case .message(let message): received.add(message.messageType)
        case .malformed, .fatal: malformedReceived += 1
        }
    }

    /// After a received message's actions were performed: what it queued since `before`.
    func noteDeliveries(since before: Int, receivedAt time: MonotonicTime) {
        let queued = deliveredTotal - before
        if queued > 0 { awaitingFlush.append((time, queued)) }
    }

    /// Runs after the driver flushed this round's packets.
    func recordFlush() {
        guard !awaitingFlush.isEmpty else { return }
        let now = MonotonicTime.now()
        for entry in awaitingFlush {
            deliveryLatency.observe(nanoseconds: (now - entry.received).nanoseconds, times: entry.deliveries)
        }
        awaitingFlush.removeAll(keepingCapacity: true)
    }

    /// The outcome labels of `qchat_file_uploads_total`, every one shown from the start.
    static let uploadOutcomes = ["stored", "bad_checksum", "incomplete", "too_long", "bad_offset", "interrupted", "failed", "low_on_disk"]

    static func uploadOutcome(_ outcome: UploadOutcome) -> String {
        switch outcome {
        case .stored: "stored"
        case .badChecksum: "bad_checksum"
        case .incomplete: "incomplete"
        case .tooLong: "too_long"
        case .badOffset: "bad_offset"
        case .interrupted: "interrupted"
        case .failed: "failed"
        case .lowOnDisk: "low_on_disk"
        }
    }

    func noteUploadEnded(_ outcome: UploadOutcome) { uploadsEnded[Self.uploadOutcome(outcome), default: 0] += 1 }

    /// Why a connection closed before its handshake completed, as a label value.
    static func handshakeFailure(_ reason: QuicCloseReason) -> String {
        switch reason.kind {
        case .handshakeTimeout, .idleTimeout: "timeout"
        case .tlsFailure: "tls"
        // 0x100-0x1ff: a TLS alert carried as a transport error (RFC 9001 section 4.8).
        case .transport(let code) where (0x100..<0x200).contains(code): "tls"
        case .transport: "transport"
        case .application: "closed"
        case .statelessReset: "reset"
        case .dropped: "dropped"
        }
    }
}
