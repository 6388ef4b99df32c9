import EventRuntime

/// The sans-IO side of one socket, as a ``RedisLink`` drives it.
protocol RedisLinkSession: AnyObject {
    /// The TCP connection is up: queue what every new connection starts with.
    func linkOpened()
    /// Bytes arrived; a failure ends the connection.
    func linkReceived(_ bytes: UnsafeRawBufferPointer) -> RedisFailure?
    var linkHasOutbound: Bool { get }
    func linkWrite(_ body: (UnsafeRawBufferPointer) throws -> Int) throws
    /// The connection is gone (or never came): answer what waited on it.
    func linkLost(_ failure: RedisFailure)
    /// Called every heartbeat interval while open: a failure (a reply overdue) ends the
    /// connection; otherwise the session may queue a PING.
    func linkCheck(now: MonotonicTime) -> RedisFailure?
}
