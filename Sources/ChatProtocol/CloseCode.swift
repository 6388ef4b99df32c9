/// Application error codes carried in QUIC CONNECTION_CLOSE (PROTOCOL.md section 5).
public enum CloseCode: UInt64, Sendable, CaseIterable {
    /// Normal quit.
    case noError = 0x0
    /// A message over 65536 bytes, invalid UTF-8 in framing, or a first message that is not `join`.
    case protocolError = 0x1
    /// The same `peer` joined on a newer connection.
    case replaced = 0x2
    /// An operator removed the client.
    case kicked = 0x3
    /// The server is stopping.
    case shutdown = 0x4
    /// Too much live traffic waited unsent to this client.
    case slowConsumer = 0x5
    /// The client kept flooding after `rate-limited`.
    case flooding = 0x6
    /// Version 1.1 (section 8): a server ban of the account (or, for a guest, its peer or address).
    case banned = 0x7

    /// The name used in PROTOCOL.md and in logs, e.g. `PROTOCOL_ERROR`.
    public var name: String {
        switch self {
        case .noError: "NO_ERROR"
        case .protocolError: "PROTOCOL_ERROR"
        case .replaced: "REPLACED"
        case .kicked: "KICKED"
        case .shutdown: "SHUTDOWN"
        case .slowConsumer: "SLOW_CONSUMER"
        case .flooding: "FLOODING"
        case .banned: "BANNED"
        }
    }
}
