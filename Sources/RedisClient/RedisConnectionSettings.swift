import QuicEngine

/// How a client drives its connections: limits, reconnect backoff and the timeouts that find a
/// dead or frozen server.
public struct RedisConnectionSettings: Sendable {
    public var limits: RedisLimits
    public var backoff: RedisBackoff
    /// A TCP connect that has not completed by then is abandoned (a retry follows).
    public var connectTimeout: QuicDuration
    /// A command (or heartbeat PING) unanswered for this long means the server is frozen or
    /// gone: the connection is dropped, every waiting command fails, and a reconnect follows.
    /// So blocking commands (BLPOP, XREAD BLOCK, WAIT) must finish well within it: qchat uses
    /// none that wait longer.
    public var replyTimeout: QuicDuration
    /// An idle connection sends a PING this often, so a silent dead peer is noticed.
    public var heartbeatInterval: QuicDuration
    /// SELECTed on every new command connection (standalone Redis only; a cluster has only 0).
    public var database: Int

    public init(limits: RedisLimits = RedisLimits(), backoff: RedisBackoff = RedisBackoff(),
                connectTimeout: QuicDuration = .seconds(2), replyTimeout: QuicDuration = .seconds(5),
                heartbeatInterval: QuicDuration = .seconds(1), database: Int = 0) {
        self.limits = limits
        self.backoff = backoff
        self.connectTimeout = connectTimeout
        self.replyTimeout = replyTimeout
        self.heartbeatInterval = heartbeatInterval
        self.database = database
    }
}
