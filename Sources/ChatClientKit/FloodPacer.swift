import QuicEngine

/// The client's model of the server's flood limit (PROTOCOL.md section 4: a token bucket per
/// connection, 20 messages in a burst, 5 a second sustained), so that it never sends faster than
/// the server accepts. Time is passed in; nothing here reads a clock.
///
/// The model starts from the protocol's defaults and learns from the server: a `rate-limited`
/// reply means the server's bucket is empty and the estimate was too generous, so burst and rate
/// shrink; a long run of accepted messages lets them grow back, never past the defaults (a server
/// may be configured lower, and the client cannot see it; it never needs more for a person).
public struct FloodPacer: Sendable, Equatable {
    public static let protocolBurst = 20.0
    public static let protocolRate = 5.0
    /// The share of the estimated rate the client uses. Messages reach the server with jitter: one
    /// that arrives a few milliseconds early at a bucket paced to exactly empty is refused.
    public static let rateMargin = 0.9
    /// Each refusal multiplies burst and rate by this.
    public static let shrinkFactor = 0.75
    public static let minimumBurst = 1.0
    public static let minimumRate = 0.5

    public private(set) var burst: Double
    public private(set) var rate: Double
    public private(set) var tokens: Double
    private var updated: MonotonicTime
    private var acceptedSinceRefusal = 0

    public init(now: MonotonicTime, burst: Double = FloodPacer.protocolBurst, rate: Double = FloodPacer.protocolRate) {
        self.burst = burst
        self.rate = rate
        tokens = burst
        updated = now
    }

    /// A new connection: the server gives it a full bucket, of which `spent` messages (the hello's
    /// `join` and `status`) are gone already.
    public mutating func restart(now: MonotonicTime, spent: Int) {
        tokens = max(0, burst - Double(spent))
        updated = now
    }

    /// Takes a token for one message if there is one.
    public mutating func take(now: MonotonicTime) -> Bool {
        refill(now: now)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// When the next token is there: `now` if there is one already.
    public func nextToken(now: MonotonicTime) -> MonotonicTime {
        var copy = self
        copy.refill(now: now)
        guard copy.tokens < 1 else { return now }
        let seconds = (1 - copy.tokens) / (rate * Self.rateMargin)
        return now + TimeSpan(nanoseconds: UInt64((seconds * 1e9).rounded(.up)))
    }

    /// The server refused a message for flooding: its bucket is empty now, and burst and rate
    /// were estimated too high.
    public mutating func refused(now: MonotonicTime) {
        refill(now: now)
        tokens = 0
        burst = max(Self.minimumBurst, burst * Self.shrinkFactor)
        rate = max(Self.minimumRate, rate * Self.shrinkFactor)
        acceptedSinceRefusal = 0
    }

    /// The server accepted a message. After a burst's worth in a row, the estimate grows back by
    /// a tenth, up to the protocol's defaults.
    public mutating func accepted() {
        acceptedSinceRefusal += 1
        guard acceptedSinceRefusal >= Int(Self.protocolBurst), burst < Self.protocolBurst || rate < Self.protocolRate else { return }
        acceptedSinceRefusal = 0
        burst = min(Self.protocolBurst, burst * 1.1)
        rate = min(Self.protocolRate, rate * 1.1)
    }

    private mutating func refill(now: MonotonicTime) {
        guard now > updated else { return }
        tokens = min(burst, tokens + (now - updated).seconds * rate * Self.rateMargin)
        updated = now
    }
}
