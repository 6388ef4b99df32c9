/// The three kinds of Redis pub/sub, by the commands that subscribe to them.
public enum RedisSubscriptionKind: Hashable, Sendable, CaseIterable {
    /// SUBSCRIBE / `message`: every node of a cluster sees every PUBLISH.
    case channel
    /// PSUBSCRIBE / `pmessage`.
    case pattern
    /// SSUBSCRIBE / `smessage` (Redis 7): a channel lives in the slot of its name, on one shard.
    case shard

    var subscribeCommand: String {
        switch self {
        case .channel: return "SUBSCRIBE"
        case .pattern: return "PSUBSCRIBE"
        case .shard: return "SSUBSCRIBE"
        }
    }

    var unsubscribeCommand: String {
        switch self {
        case .channel: return "UNSUBSCRIBE"
        case .pattern: return "PUNSUBSCRIBE"
        case .shard: return "SUNSUBSCRIBE"
        }
    }

    /// The kind a RESP2 pub/sub array's first element names, and what it is.
    static func parse(_ word: [UInt8]) -> (kind: RedisSubscriptionKind, role: PushRole)? {
        switch String(decoding: word, as: UTF8.self).lowercased() {
        case "message": return (.channel, .message)
        case "pmessage": return (.pattern, .message)
        case "smessage": return (.shard, .message)
        case "subscribe": return (.channel, .subscribed)
        case "psubscribe": return (.pattern, .subscribed)
        case "ssubscribe": return (.shard, .subscribed)
        case "unsubscribe": return (.channel, .unsubscribed)
        case "punsubscribe": return (.pattern, .unsubscribed)
        case "sunsubscribe": return (.shard, .unsubscribed)
        default: return nil
        }
    }

    enum PushRole { case message, subscribed, unsubscribed }
}

/// A subscription: its kind and its channel (or pattern) name.
public struct RedisSubscription: Hashable, Sendable, CustomStringConvertible {
    public var kind: RedisSubscriptionKind
    public var channel: [UInt8]

    public init(_ kind: RedisSubscriptionKind, _ channel: [UInt8]) {
        self.kind = kind
        self.channel = channel
    }

    public init(_ kind: RedisSubscriptionKind, _ channel: String) { self.init(kind, Array(channel.utf8)) }

    public var description: String { "\(kind) \(String(decoding: channel, as: UTF8.self))" }
}

/// A message published to a subscription: `message`, `smessage`, or `pmessage` (with the
/// channel it was published on in `channel` and the matching pattern in `subscription`).
public struct RedisPush: Hashable, Sendable {
    public var subscription: RedisSubscription
    public var channel: [UInt8]
    public var payload: [UInt8]

    public init(subscription: RedisSubscription, channel: [UInt8], payload: [UInt8]) {
        self.subscription = subscription
        self.channel = channel
        self.payload = payload
    }
}
