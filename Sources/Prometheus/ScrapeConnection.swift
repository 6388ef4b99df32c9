import EventRuntime

/// One scraper's TCP connection: the request head as it arrives, then the answer being written,
/// then the wait for the scraper to close its side.
final class ScrapeConnection {
    enum Phase {
        case reading
        case answering
        /// Answered and our side shut down: waiting for the peer's FIN before closing, so a
        /// reset cannot destroy the answer in flight.
        case lingering
    }

    let stream: TCPStream
    var phase = Phase.reading
    var request: ScrapeRequestReader
    /// The whole answer, status line to body; a page is shared by every connection served it.
    var answer: [UInt8] = []
    var written = 0
    var deadline: LoopTimerID?
    /// Its place in ``DisplaceableScrapes``: the neighbours, and whether it is in the queue.
    var earlier: ScrapeConnection?
    var later: ScrapeConnection?
    var isDisplaceable = false

    init(stream: TCPStream, requestLimit: Int) {
        self.stream = stream
        request = ScrapeRequestReader(limit: requestLimit)
    }
}
