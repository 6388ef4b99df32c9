/// One file stream: a connection and the QUIC stream id of a client-opened bidirectional stream
/// other than 0 and 4 (8, 12, 16, …; PROTOCOL.md section 9).
public struct FileStreamKey: Sendable, Hashable, CustomStringConvertible {
    public let client: ClientID
    public let stream: Int64

    public init(client: ClientID, stream: Int64) {
        self.client = client
        self.stream = stream
    }

    public var description: String { "\(client)/\(stream)" }
}
