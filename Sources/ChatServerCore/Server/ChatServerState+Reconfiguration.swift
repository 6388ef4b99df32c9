import ChatProtocol

/// New limits while clients are connected (`chat-server` reloads its configuration on SIGHUP).
extension ChatServerState {
    /// Applies `configuration` to everyone at once: connected clients' flood and typing buckets
    /// take the new capacity and rate, keeping the tokens they have up to the new capacity, and
    /// their strike windows the new count and length; server operators are the new list from
    /// their next request; idle rooms beyond a lowered bound are forgotten now. Limits checked per
    /// request (rooms per client, history length, replay, the password queue), `accountsOnly` and
    /// the server name apply from the next request or hello: nobody is taken out of a room
    /// already joined, nor closed. Throws, changing nothing, for a configuration out of range.
    public func reconfigure(_ configuration: ChatServerConfiguration, now: Int64) throws(ChatServerConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
        policies.operatorKeys = Set(configuration.operators.map(ChatValidation.nickKey))
        for session in clients.values { session.apply(configuration, now: now) }
        while idleRooms.count > configuration.idleRoomLimit, let oldest = idleRooms.popOldest() {
            forgetIdleRoom(oldest)
        }
    }
}

extension ClientSession {
    func apply(_ configuration: ChatServerConfiguration, now: Int64) {
        floodBucket.reconfigure(capacity: configuration.floodBurst, refillPerSecond: configuration.floodPerSecond, now: now)
        typingBucket.reconfigure(capacity: configuration.typingBurst, refillPerSecond: configuration.typingPerSecond, now: now)
        presenceTypingBucket.reconfigure(capacity: max(1, Int(configuration.presenceTypingPerSecond.rounded(.up))),
                                         refillPerSecond: configuration.presenceTypingPerSecond, now: now)
        rateLimitStrikes.reconfigure(limit: configuration.floodStrikes, windowMilliseconds: configuration.floodStrikeWindowMilliseconds)
    }
}
