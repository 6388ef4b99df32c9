/// The away auto-reply's pace (PROTOCOL.md section 14 and 17, "Away"): the first `dm` to an away
/// user in an hour gets the sender an `away`; once per (sender, away account) per hour. The pairs
/// remembered are bounded (``limit``, oldest forgotten first): a forgotten pair only means one
/// more reply within the hour, never an unbounded table.
public struct AwayReplyLimiter {
    /// An hour, in milliseconds.
    public static let interval: Int64 = 3_600_000
    /// Pairs remembered at most.
    public static let defaultLimit = 10_000

    private struct Pair: Hashable {
        let sender: String
        let away: String
    }

    private var lastReply: OldestFirstMap<Pair, Int64>

    public init(limit: Int = AwayReplyLimiter.defaultLimit) {
        lastReply = OldestFirstMap(limit: limit)
    }

    public var limit: Int { lastReply.limit }
    public var count: Int { lastReply.count }

    /// Whether a `dm` from `sender` (an account's key, or a guest connection's own key) to the
    /// away account `away` at `now` (ms) gets the auto-reply; if so, the hour starts again.
    public mutating func shouldReply(from sender: String, to away: String, now: Int64) -> Bool {
        let pair = Pair(sender: sender, away: away)
        if let last = lastReply[pair], now - last < Self.interval { return false }
        lastReply.remember(now, forKey: pair)
        return true
    }
}
