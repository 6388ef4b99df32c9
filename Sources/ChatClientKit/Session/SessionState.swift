/// Where a chat session stands (``SessionCore``, ``ResilientSession``).
public enum SessionState: Equatable, Sendable {
    /// The first connection, before its `welcome`.
    case connecting
    case connected
    /// The connection was lost (attempt 1) or a reconnect failed (attempt 2, 3, ...).
    case reconnecting(attempt: Int, reason: String)
    /// The server refused the hello (`bad-nick`, `bad-room`, ...); the connection waits for
    /// another nick or the end.
    case refused(code: String, text: String)
    /// The first connection's handshake ended on a certificate that no CA signs and no pin
    /// names (`ServerCertificatePolicy.firstUse`): nothing was sent to the server. Waits for the
    /// person to trust it (it is pinned and connected to again) or quit.
    case unknownServer(fingerprint: String)
    case stopped(SessionEnding)
}

/// Why a session ended.
public struct SessionEnding: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        /// The person quit.
        case quit
        /// The server was never reached.
        case unreachable
        /// The server's certificate is not trusted, or the TLS handshake was refused: not
        /// transient, never retried.
        case untrusted
        /// The server presented another certificate than the one pinned for it: refused, never
        /// retried, no way around it but editing the pin.
        case certificateChanged(pinned: String, presented: String)
        /// The server ended the session for good (kicked, replaced by a newer connection) or
        /// refused the hello and closed.
        case closed
    }

    public let kind: Kind
    public let reason: String

    public init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }
}
