/// What a ``RedisClient`` tells its owner, on the loop thread.
public enum RedisClientEvent: Sendable {
    /// The command connection to a server opened.
    case connected(RedisServerAddress)
    /// The command connection to a server was lost or could not be made; a reconnect follows.
    case disconnected(RedisServerAddress, RedisFailure)
    /// A pub/sub message, or a subscription confirmed (`restored`: after a loss, so messages
    /// published meanwhile are missing) or ended.
    case subscriber(RedisSubscriberEvent)
    /// The subscriber connection these were on was lost: until each is `subscribed` again with
    /// `restored: true`, messages published to them are not received.
    case subscriptionsInterrupted([RedisSubscription])
    /// Redis Cluster: a new slot map, with this many masters serving slots.
    case slotMapUpdated(masters: Int)
}
