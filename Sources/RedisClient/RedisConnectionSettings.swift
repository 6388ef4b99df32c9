import EventRuntime

/// How a client drives its connections: limits, reconnect backoff, the timeouts that find a
/// dead or frozen server, and how many replicas must confirm a durable write.
public struct RedisConnectionSettings: Sendable {
    public var limits: RedisLimits
    public var backoff: RedisBackoff
    /// A TCP connect that has not completed by then is abandoned (a retry follows).
    public var connectTimeout: TimeSpan
    /// A command (or heartbeat PING) unanswered for this long means the server is frozen or
    /// gone: the connection is dropped, every waiting command fails, and a reconnect follows.
    /// So blocking commands (BLPOP, XREAD BLOCK, WAIT) must finish well within it: qchat's only
    /// one is WAIT, bounded by `replicationTimeout`.
    public var replyTimeout: TimeSpan
    /// An idle connection sends a PING this often, so a silent dead peer is noticed.
    public var heartbeatInterval: TimeSpan
    /// SELECTed on every new command connection (standalone Redis only; a cluster has only 0).
    public var database: Int
    /// Replicas that must confirm a durable write (`send(..., durable: true)`) before it is
    /// answered: `WAIT N` after it on its connection. 0: no WAIT, durable writes are plain.
    public var replicasToWaitFor: Int
    /// WAIT's own timeout. One WAIT at a time is in flight per connection and every command
    /// behind it waits for it, so this bounds the delay a missing replica adds to everything on
    /// that master: a tenth of `replyTimeout`, and far above a healthy replica's confirmation
    /// (well under a millisecond on a LAN: the master asks at the end of its event-loop round).
    public var replicationTimeout: TimeSpan

    public init(limits: RedisLimits = RedisLimits(), backoff: RedisBackoff = RedisBackoff(),
                connectTimeout: TimeSpan = .seconds(2), replyTimeout: TimeSpan = .seconds(5),
                heartbeatInterval: TimeSpan = .seconds(1), database: Int = 0, replicasToWaitFor: Int = 0,
                replicationTimeout: TimeSpan = .milliseconds(500)) {
        self.limits = limits
        self.backoff = backoff
        self.connectTimeout = connectTimeout
        self.replyTimeout = replyTimeout
        self.heartbeatInterval = heartbeatInterval
        self.database = database
        self.replicasToWaitFor = max(0, replicasToWaitFor)
        // A WAIT longer than the reply timeout would be taken for a frozen server.
        self.replicationTimeout = min(replicationTimeout, TimeSpan(nanoseconds: replyTimeout.nanoseconds / 2))
    }
}
