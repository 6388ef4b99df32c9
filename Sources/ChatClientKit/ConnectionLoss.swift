import ChatProtocol
import QuicEngine

/// Why a connection ended, as far as coming back goes (PROTOCOL.md section 6): one reading of a
/// close for every client, which then decides what it does with each kind.
public enum ConnectionLoss: Equatable, Sendable {
    /// The server or the path went away: an idle timeout, a stateless reset from a restarted
    /// server, SHUTDOWN (a server or node stopping), an ICMP port unreachable (a killed process),
    /// a failed handshake. Every client reconnects and resumes.
    case transient
    /// The server closed this client for what it sent or did not read: PROTOCOL_ERROR, FLOODING,
    /// SLOW_CONSUMER. chat-client reconnects (a person's client recovers); a bot does not, since
    /// coming back would hide its own fault from the script or the measurement.
    case misbehaviour
    /// Out for good: KICKED, REPLACED (a newer connection of the same peer), BANNED. Nobody
    /// reconnects.
    case removed
    /// TLS failed (a certificate not trusted, an alert from the server's TLS stack): not
    /// transient, never retried on that server.
    case untrusted

    public init(_ reason: QuicCloseReason) {
        switch reason.kind {
        case .tlsFailure:
            self = .untrusted
        case .transport(let code) where reason.byPeer && (0x100...0x1FF).contains(code):
            // The server's TLS stack refused the handshake (a client certificate it requires, ALPN).
            self = .untrusted
        case .application(let code) where reason.byPeer:
            switch CloseCode(rawValue: code) {
            case .kicked, .replaced, .banned: self = .removed
            case .protocolError, .flooding, .slowConsumer: self = .misbehaviour
            case .noError, .shutdown, nil: self = .transient
            }
        default:
            self = .transient
        }
    }
}
