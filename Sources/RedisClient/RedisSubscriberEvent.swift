/// What a subscriber connection reports besides replies to nothing: pushes and changes of
/// subscription state.
public enum RedisSubscriberEvent: Hashable, Sendable {
    case message(RedisPush)
    /// Redis confirmed the subscription. `restored` is true when it had been confirmed before and
    /// was lost with a connection: messages published meanwhile are missing (a gap).
    case subscribed(RedisSubscription, restored: Bool)
    /// Redis confirmed an unsubscribe we asked for.
    case unsubscribed(RedisSubscription)
    /// Redis ended a subscription we still want (a cluster slot moved away, `sunsubscribe`) or
    /// refused it (`-MOVED` for SSUBSCRIBE on the wrong shard): the owner places it again.
    case dropped(RedisSubscription, reason: String)
}
