import EventRuntime

/// Delays between reconnect attempts: doubling from `initial` up to `maximum`, each drawn at
/// random from its upper half ("equal jitter"), so that the nodes of a cluster that lost Redis at
/// the same moment do not all come back in the same millisecond.
public struct RedisBackoff: Hashable, Sendable {
    public var initial: TimeSpan
    public var maximum: TimeSpan

    public init(initial: TimeSpan = .milliseconds(50), maximum: TimeSpan = .seconds(2)) {
        self.initial = initial
        self.maximum = max(initial, maximum)
    }

    /// The delay before attempt `attempt` (0 for the first retry), given a random 64-bit value.
    public func delay(attempt: Int, random: UInt64) -> TimeSpan {
        var ceiling = initial.nanoseconds
        for _ in 0..<min(attempt, 40) where ceiling < maximum.nanoseconds { ceiling = min(ceiling * 2, maximum.nanoseconds) }
        let half = ceiling / 2
        return TimeSpan(nanoseconds: half + (half == 0 ? 0 : random % (half + 1)))
    }
}
