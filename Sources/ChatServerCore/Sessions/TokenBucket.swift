/// A token bucket on the caller's millisecond clock: `capacity` tokens at most, refilled at
/// `refillPerSecond`. The clock is passed in, so tests control time exactly.
struct TokenBucket {
    private(set) var capacity: Double
    private(set) var refillPerMillisecond: Double
    private(set) var tokens: Double
    private var lastRefill: Int64

    init(capacity: Int, refillPerSecond: Double, now: Int64) {
        self.capacity = Double(capacity)
        refillPerMillisecond = refillPerSecond / 1_000
        tokens = Double(capacity)
        lastRefill = now
    }

    /// Takes one token if there is one.
    mutating func take(now: Int64) -> Bool {
        refill(now: now)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// New limits from `now` on: what was earned at the old rate until now is kept, up to the
    /// new capacity.
    mutating func reconfigure(capacity: Int, refillPerSecond: Double, now: Int64) {
        refill(now: now)
        self.capacity = Double(capacity)
        refillPerMillisecond = refillPerSecond / 1_000
        tokens = min(tokens, self.capacity)
    }

    private mutating func refill(now: Int64) {
        // A clock that steps back must not drain the bucket, so negative time is ignored.
        guard now > lastRefill else { return }
        tokens = min(capacity, tokens + Double(now - lastRefill) * refillPerMillisecond)
        lastRefill = now
    }
}
