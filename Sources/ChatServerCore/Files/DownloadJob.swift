/// A download the core allowed: the glue writes `header` on the stream, then bytes `offset` to
/// `size` of the content named `sha256`, read from disk off the event loop, then FIN.
public struct DownloadJob: Sendable {
    public let header: SharedPayload
    public let sha256: String
    public let offset: Int64
    public let size: Int64

    public init(header: SharedPayload, sha256: String, offset: Int64, size: Int64) {
        self.header = header
        self.sha256 = sha256
        self.offset = offset
        self.size = size
    }
}
