/// A request head arriving in pieces: each byte is looked at once, however slowly a scraper
/// sends it, and the head is parsed once, when it ends. At most `limit` bytes are kept.
public struct ScrapeRequestReader {
    public let limit: Int
    private var bytes: [UInt8] = []
    private var scanned = 0
    private var verdict = ScrapeRequest.Verdict.incomplete

    public init(limit: Int) { self.limit = limit }

    /// Takes the next bytes; once the verdict is not `.incomplete` it stays, and later bytes
    /// are ignored.
    public mutating func append(_ chunk: UnsafeRawBufferPointer) -> ScrapeRequest.Verdict {
        guard verdict == .incomplete else { return verdict }
        bytes.append(contentsOf: chunk.prefix(limit - bytes.count))
        while scanned < bytes.count {
            let byte = bytes[scanned]
            scanned += 1
            if byte == ScrapeRequest.lineFeed {
                // A lone LF cannot end a line here: better an immediate 400 than waiting for a
                // CR LF CR LF that never comes.
                let index = scanned - 1
                guard index > 0, bytes[index - 1] == ScrapeRequest.carriageReturn else { return settle(.refuse(.badRequest)) }
                if index >= 3, bytes[index - 2] == ScrapeRequest.lineFeed, bytes[index - 3] == ScrapeRequest.carriageReturn {
                    return settle(ScrapeRequest.judgeHead(bytes[..<(index - 3)]))
                }
            } else if byte == 0 || byte >= 0x80 {
                // NUL and non-ASCII have no place in a request head this endpoint accepts.
                return settle(.refuse(.badRequest))
            }
        }
        return bytes.count >= limit ? settle(.refuse(.headersTooLarge)) : .incomplete
    }

    private mutating func settle(_ final: ScrapeRequest.Verdict) -> ScrapeRequest.Verdict {
        verdict = final
        bytes = []
        return final
    }
}
