import ChatProtocol

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
}
