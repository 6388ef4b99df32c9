import ChatServerCore
import EventRuntime
import RedisClient

/// Counts a password attempt before its hash runs, across nodes (PROTOCOL.md section 7): in
/// `{accounts}:attempts:account:KEY` and `{accounts}:attempts:address:ADDRESS` (one slot for all,
/// so one script counts both at once), sorted sets of the attempts of the last window scored by
/// the store's clock, attempts still being hashed on any node included. Fails closed: a store
/// that cannot be asked is `unavailable`, never a free attempt. A registration (``LoginAttempt/Kind``)
/// counts in `{accounts}:registrations:ADDRESS` alone, by the same script.
public struct LoginAttemptReserve: StoreRequest {
    public let attempt: LoginAttempt
    let command: StoreCommand?

    public init(_ attempt: LoginAttempt, limit: Int, windowMilliseconds: Int64, node: String) {
        self.attempt = attempt
        let keys = Self.keys(attempt)
        command = keys.first.map { first in
            StoreCommand(RedisCommand("EVAL", [Self.reserveAttemptScript, String(keys.count)] + keys
                                      + [String(windowMilliseconds), String(limit), Self.member(attempt, node: node)]), key: first)
        }
    }

    public func start() -> StoreStep<LoginAttemptReservation> {
        guard let command else { return .done(.reserved) }
        return .send([command])
    }

    public func answered(_ results: [Result<RedisReply, RoomStoreError>], now: MonotonicTime) -> StoreStep<LoginAttemptReservation> {
        switch results[0] {
        case .failure: .done(.unavailable)
        case .success(let reply): .done(reply.integer == 1 ? .reserved : .locked)
        }
    }

    /// Takes a counted attempt back (its password was right); lost with the store, it stays
    /// counted until the window passes: the safe side. Nil when nothing was counted.
    public static func release(_ attempt: LoginAttempt, node: String) -> StoreCommand? {
        let keys = keys(attempt)
        guard let first = keys.first else { return nil }
        return StoreCommand(RedisCommand("EVAL", [releaseAttemptScript, String(keys.count)] + keys + [member(attempt, node: node)]), key: first)
    }

    /// Names this run's attempts apart from an earlier run's (the tickets start again at 1).
    static let attemptRun = String(MonotonicTime.now().nanoseconds)

    static func keys(_ attempt: LoginAttempt) -> [String] {
        if attempt.kind == .registration { return attempt.address.isEmpty ? [] : ["{accounts}:registrations:" + attempt.address] }
        return (attempt.account.map { ["{accounts}:attempts:account:" + $0] } ?? [])
            + (attempt.address.isEmpty ? [] : ["{accounts}:attempts:address:" + attempt.address])
    }

    static func member(_ attempt: LoginAttempt, node: String) -> String { "\(node):\(attemptRun):\(attempt.ticket)" }

    /// KEYS the attempt's counts; ARGV[1] the window (ms), ARGV[2] the limit, ARGV[3] the
    /// attempt. 1 when counted in every key, 0 (nothing counted) when one is full.
    public static let reserveAttemptScript = """
        local time = redis.call('TIME')
        local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
        local window = tonumber(ARGV[1])
        for _, key in ipairs(KEYS) do
            redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
            if redis.call('ZCARD', key) >= tonumber(ARGV[2]) then return 0 end
        end
        for _, key in ipairs(KEYS) do
            redis.call('ZADD', key, now, ARGV[3])
            redis.call('PEXPIRE', key, window)
        end
        return 1
        """

    public static let releaseAttemptScript = """
        for _, key in ipairs(KEYS) do redis.call('ZREM', key, ARGV[1]) end
        return 1
        """
}
