/// Wrong passwords lately, per account and per client address (PROTOCOL.md section 7: at most 5
/// in 60 s each; after that every attempt is `bad-login` until the window has passed, and no
/// password is even hashed). A certificate login is never refused by this: an attacker guessing
/// passwords cannot lock out an owner whose certificate is bound.
struct LoginFailures {
    private let limit: Int
    private let windowMilliseconds: Int64
    private let keyLimit: Int
    private var byAccount: [String: StrikeWindow] = [:]
    private var byAddress: [String: StrikeWindow] = [:]

    init(limit: Int, windowMilliseconds: Int64, keyLimit: Int) {
        self.limit = limit
        self.windowMilliseconds = windowMilliseconds
        self.keyLimit = keyLimit
    }

    /// Whether a password attempt for `account` (a key; nil for a name that is no account) from
    /// `address` is refused without being checked.
    /// An empty address is a shared one: only the account counts.
    func isLocked(account: String?, address: String, now: Int64) -> Bool {
        if let account, byAccount[account]?.isFull(now: now) == true { return true }
        return !address.isEmpty && byAddress[address]?.isFull(now: now) == true
    }

    /// A wrong password (or a name that is no account) for `account` from `address`.
    mutating func recordFailure(account: String?, address: String, now: Int64) {
        if let account { Self.strike(&byAccount, account, limit: limit, window: windowMilliseconds, keyLimit: keyLimit, now: now) }
        if !address.isEmpty { Self.strike(&byAddress, address, limit: limit, window: windowMilliseconds, keyLimit: keyLimit, now: now) }
    }

    /// Tracked keys, for the bound's test.
    var trackedKeys: Int { byAccount.count + byAddress.count }

    private static func strike(_ windows: inout [String: StrikeWindow], _ key: String, limit: Int, window: Int64, keyLimit: Int,
                               now: Int64) {
        if windows[key] == nil, windows.count >= keyLimit {
            // Full: forget the keys whose last failure left the window; if none did, the oldest.
            windows = windows.filter { ($0.value.latest ?? 0) > now - window }
            if windows.count >= keyLimit, let oldest = windows.min(by: { ($0.value.latest ?? 0) < ($1.value.latest ?? 0) }) {
                windows[oldest.key] = nil
            }
        }
        _ = windows[key, default: StrikeWindow(limit: limit, windowMilliseconds: window)].strike(now: now)
    }
}
