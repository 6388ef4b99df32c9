import EventRuntime
import RedisClient

/// A command of one of the node's ordinary requests: sent to the server that holds `key`'s slot;
/// `durable` when the client is told of the write (with `--cluster-wait-replicas` the replicas
/// confirm it first).
public struct StoreCommand: Equatable, Sendable {
    public let command: RedisCommand
    public let key: String
    public let durable: Bool

    public init(_ command: RedisCommand, key: String, durable: Bool = false) {
        self.command = command
        self.key = key
        self.durable = durable
    }

    /// `message` published on `channel` (a sharded channel on a Redis Cluster, whose plain
    /// PUBLISH would go to every shard).
    public static func publish(_ message: [UInt8], on channel: String, sharded: Bool) -> StoreCommand {
        StoreCommand(RedisCommand(arguments: [Array((sharded ? "SPUBLISH" : "PUBLISH").utf8), Array(channel.utf8), message]), key: channel)
    }

    public static func publish(_ message: String, on channel: String, sharded: Bool) -> StoreCommand {
        publish(Array(message.utf8), on: channel, sharded: sharded)
    }
}

/// What a ``StoreRequest`` asks for next.
public enum StoreStep<Outcome> {
    /// These commands, sent at once; their results come back together, in this order
    /// (``StoreRequest/answered(_:now:)``).
    case send([StoreCommand])
    /// Nothing for this long, then ``StoreRequest/resume()`` (a retry while Redis is unavailable).
    case wait(TimeSpan)
    /// The request's outcome. `then` goes out before the outcome is handed on, its replies
    /// unread (an announcement to the other nodes, a record written behind).
    case done(Outcome, then: [StoreCommand] = [])
}

/// One of the node's ordinary requests to the shared store (an account read, a lease taken, a
/// file record stored, ...), sans-IO: the commands it sends step by step, what it makes of the
/// replies (Redis's error replies and lost connections as ``RoomStoreError``s), its retries.
/// ``StoreRequestDriver`` performs it on a ``RedisClient``; the tests on a scripted or in-memory
/// Redis.
public protocol StoreRequest {
    associatedtype Outcome
    /// The first step.
    mutating func start() -> StoreStep<Outcome>
    /// The results of the commands of the last ``StoreStep/send(_:)``, in its order.
    mutating func answered(_ results: [Result<RedisReply, RoomStoreError>], now: MonotonicTime) -> StoreStep<Outcome>
    /// The step after a ``StoreStep/wait(_:)``: by default the request starts again.
    mutating func resume() -> StoreStep<Outcome>
}

extension StoreRequest {
    public mutating func resume() -> StoreStep<Outcome> { start() }
}

/// How long a read is retried while Redis is unavailable ("not now" answers, a lost connection)
/// before the core hears it failed: a read changes nothing, so a retry is safe, and the client
/// waits for this one.
public struct ReadPatience: Sendable, Equatable {
    public static let patience = TimeSpan.seconds(5)
    public static let retryDelay = TimeSpan.milliseconds(200)
    public let startedAt: MonotonicTime

    public init(startedAt: MonotonicTime) { self.startedAt = startedAt }

    /// Whether a read that failed with `error` at `now` is tried again after ``retryDelay``.
    public func retries(_ error: RoomStoreError, now: MonotonicTime) -> Bool {
        error.isTransient && now < startedAt + Self.patience
    }
}

/// How often a write behind (one nobody waits for: a policy change, an interrupted upload's
/// record) is tried again, ``ReadPatience/retryDelay`` apart, before it is given up as lost.
public struct WriteBehindRetries: Sendable, Equatable {
    public static let limit = 25
    public private(set) var retried = 0

    public init() {}

    /// Whether the write that just failed is tried again (counted).
    public mutating func retry() -> Bool {
        guard retried < Self.limit else { return false }
        retried += 1
        return true
    }
}
