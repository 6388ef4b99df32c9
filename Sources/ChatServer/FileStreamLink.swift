import ChatProtocol
import ChatServerCore

/// What the glue keeps per file stream (PROTOCOL.md section 9): the header being read, then an
/// upload's body going to the file worker, or a download's bytes coming from it.
final class FileStreamLink {
    enum Phase {
        /// Reading the header line (at most one stream message).
        case header
        /// The header is with the core, which answers later (a node of several reads file records
        /// first): body bytes wait here, their stream credit not returned (bounded by the window).
        case deciding(held: [UInt8], finished: Bool)
        /// The body goes to the file worker; credit comes back as it is written.
        case receiving
        /// A download whose stored bytes the file worker is opening: its header goes once they
        /// are there (a missing file is an error, never a header and then a reset).
        case opening(DownloadJob)
        /// A download: bytes `next` to `end` of `sha256` still to go; `pending` is what the
        /// stream's send buffer has not taken yet; `reading` while a chunk is on its way.
        case sending(sha256: String, next: Int64, end: Int64)
        /// Answered and finished: anything more that arrives is dropped.
        case done
    }

    var phase = Phase.header
    var reader = FileStreamHeaderReader()
    var pending: [UInt8] = []
    var reading = false
    /// An upload's body bytes received and not yet handed to the file worker: the engine
    /// delivers a STREAM frame (about 1.4 KB) at a time, and a worker job, a `write` and a
    /// credit report per frame cost the server more than the bytes do. Handed over once
    /// ``handOverSize`` bytes are here, at FIN or reset, and at the end of the loop round.
    var unwritten: [UInt8] = []
    /// In the glue's list of uploads to hand over at the end of the round.
    var listedForHandOver = false
    /// Unix milliseconds of the stream's last progress: opened, header or body bytes in, body
    /// bytes written to disk, download bytes taken by the stream. A stream without any for
    /// `--file-stall-timeout` is given up (``ChatServerApp/giveUpStalledFileStreams(now:)``).
    var lastProgress: Int64
    /// An upload's body bytes handed to the file worker and not yet reported written: while
    /// there are any, the stream waits for the server's disk, not for its client.
    var withWorker = 0

    /// The stream waits for the server (its header with the core, its bytes with the file
    /// worker), not for its client: no stall of the client's.
    var waitsForServer: Bool {
        switch phase {
        case .deciding, .opening: true
        case .receiving: withWorker > 0
        case .sending: reading
        case .header, .done: false
        }
    }

    /// Bytes in and out since the stream's current rate window began (``isTooSlow(now:window:minimumRate:)``).
    var rateWindowStart: Int64
    var rateWindowBytes: Int64 = 0

    init(now: Int64) {
        lastProgress = now
        rateWindowStart = now
    }

    /// Whether the window that began at `rateWindowStart`, once `window` long, moved fewer than
    /// `minimumRate` bytes a second (`--file-min-rate`); a window that ends starts the next.
    func isTooSlow(now: Int64, window: Int64, minimumRate: Int64) -> Bool {
        guard minimumRate > 0, now - rateWindowStart >= window else { return false }
        let slow = rateWindowBytes * 1000 < minimumRate * (now - rateWindowStart)
        restartRateWindow(now: now)
        return slow
    }

    /// Time the stream waits for the server does not count against its rate.
    func restartRateWindow(now: Int64) {
        rateWindowStart = now
        rateWindowBytes = 0
    }

    /// Bytes of an upload per worker job (one `write`, one hash update, one credit report).
    static let handOverSize = 64 << 10

    /// Takes the unwritten bytes, leaving room for the next job's.
    func takeUnwritten() -> [UInt8] {
        var taken: [UInt8] = []
        taken.reserveCapacity(Self.handOverSize + 2048)
        swap(&taken, &unwritten)
        return taken
    }
}
