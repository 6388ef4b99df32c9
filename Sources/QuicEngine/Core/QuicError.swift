/// What an engine call can fail with. Callers branch on the case; `description` is for people.
public enum QuicError: Error, Equatable, CustomStringConvertible {
    case invalidConfiguration(String)
    case tls(function: String, message: String)
    case streamLimitReached
    case unknownStream(QuicStreamID)
    case streamNotWritable(QuicStreamID)
    case datagramsUnsupported
    case datagramTooLarge(size: Int, limit: Int)
    case emptyDatagram
    case datagramQueueFull
    case connectionClosed
    case connectionLimitReached
    case migrationRefused(String)
    case library(function: String, code: Int32, message: String)
    case system(function: String, errno: Int32, message: String)

    public var description: String {
        switch self {
        case .invalidConfiguration(let text): return "invalid configuration: \(text)"
        case .tls(let function, let message): return "TLS: \(function): \(message)"
        case .streamLimitReached: return "the peer allows no more streams"
        case .unknownStream(let id): return "no stream \(id)"
        case .streamNotWritable(let id): return "stream \(id) is closed for writing"
        case .datagramsUnsupported: return "the peer does not accept DATAGRAM frames"
        case .datagramTooLarge(let size, let limit): return "datagram of \(size) bytes exceeds the limit of \(limit)"
        case .emptyDatagram: return "a datagram must not be empty"
        case .datagramQueueFull: return "datagram queue full"
        case .connectionClosed: return "connection closed"
        case .connectionLimitReached: return "connection limit reached"
        case .migrationRefused(let text): return "migration refused: \(text)"
        case .library(let function, let code, let message): return "\(function) failed (\(code)): \(message)"
        case .system(let function, let errno, let message): return "\(function): \(message) (errno \(errno))"
        }
    }
}

/// Why a connection ended, as seen by this side.
public struct QuicCloseReason: Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        /// CONNECTION_CLOSE of type 0x1d carrying an application error code.
        case application(code: UInt64)
        /// CONNECTION_CLOSE of type 0x1c carrying a transport error code (0x100+ are TLS alerts).
        case transport(code: UInt64)
        case idleTimeout
        case handshakeTimeout
        case statelessReset
        /// A local TLS failure, such as a certificate that failed verification.
        case tlsFailure(alert: UInt8)
        /// Dropped without a CONNECTION_CLOSE (e.g. the server endpoint discarded it).
        case dropped
    }

    public var kind: Kind
    public var reason: String
    /// True when the peer sent the CONNECTION_CLOSE (or the stateless reset).
    public var byPeer: Bool

    public init(kind: Kind, reason: String, byPeer: Bool) {
        self.kind = kind
        self.reason = reason
        self.byPeer = byPeer
    }

    /// The application error code when the close carried one.
    public var applicationCode: UInt64? {
        if case .application(let code) = kind { return code }
        return nil
    }

    public var description: String {
        let who = byPeer ? "peer" : "local"
        switch kind {
        case .application(let code): return "\(who) application close 0x\(String(code, radix: 16)) \(reason)"
        case .transport(let code): return "\(who) transport close 0x\(String(code, radix: 16)) \(reason)"
        case .idleTimeout: return "idle timeout"
        case .handshakeTimeout: return "handshake timeout"
        case .statelessReset: return "stateless reset"
        case .tlsFailure(let alert): return "TLS failure (alert \(alert)): \(reason)"
        case .dropped: return "dropped: \(reason)"
        }
    }
}
