/// Why a command got no reply from Redis. Every command handed to a connection is answered,
/// with its reply or with one of these; none is dropped silently.
public enum RedisFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// The connection dropped (or was closed for a protocol violation) before the reply came.
    case connectionLost(String)
    /// No connection to Redis right now (waiting to reconnect): nothing was sent.
    case unavailable(String)
    /// A limit of ``RedisLimits`` refused the command before it was sent.
    case limitExceeded(String)
    /// Redis's reply broke RESP or one of the reply limits; the connection is dropped.
    case protocolViolation(String)
    /// The client was stopped.
    case stopped
    /// Redis Cluster: more redirections than allowed, or no node known for the slot.
    case redirection(String)
    /// A durable write ran on its master, but fewer replicas than required confirmed it within
    /// the replication timeout (`WAIT`): it may be lost to a failover. A resend must be safe
    /// (the room-event script's dedupe key makes it so).
    case notReplicated(String)

    public var description: String {
        switch self {
        case .connectionLost(let why): return "connection to Redis lost: \(why)"
        case .unavailable(let why): return "Redis unavailable: \(why)"
        case .limitExceeded(let why): return "limit exceeded: \(why)"
        case .protocolViolation(let why): return "Redis protocol violation: \(why)"
        case .stopped: return "Redis client stopped"
        case .redirection(let why): return "Redis Cluster redirection failed: \(why)"
        case .notReplicated(let why): return "not confirmed by enough replicas: \(why)"
        }
    }
}
