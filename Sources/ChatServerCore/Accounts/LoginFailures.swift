/// Password attempts lately, per account and per client address (PROTOCOL.md section 7: at most
/// 5 wrong in 60 s each; after that every attempt is `bad-login` until the window has passed, and
/// no password is even hashed), on one server. An attempt is counted when it is admitted, before
/// its hash runs (``reserve(_:now:)``), and taken back only when the password was right
/// (``release(_:)``): guesses still being hashed count, so no number of them sent at once gets
/// more than the limit checked. A certificate login is never refused by this: an attacker
/// guessing passwords cannot lock out an owner whose certificate is bound. (A node of several
/// keeps these counts in the shared store instead: ``ServerAction/reserveLoginAttempt(_:limit:windowMilliseconds:)``;
/// the local store adapter answers that action with one of these.)
public struct LoginFailures {
    private let limit: Int
    private let windowMilliseconds: Int64
    private let keyLimit: Int
    private var byAccount: [String: StrikeWindow] = [:]
    private var byAddress: [String: StrikeWindow] = [:]

    public init(limit: Int, windowMilliseconds: Int64, keyLimit: Int) {
        self.limit = limit
        self.windowMilliseconds = windowMilliseconds
        self.keyLimit = keyLimit
    }

    /// Whether a password attempt for `account` (a key; nil for a name that cannot be one) from
    /// `address` is refused without being checked. An empty address is a shared one: only the
    /// account counts.
    public func isLocked(account: String?, address: String, now: Int64) -> Bool {
        if let account, byAccount[account]?.isFull(now: now) == true { return true }
        return !address.isEmpty && byAddress[address]?.isFull(now: now) == true
    }

    /// Counts `attempt` as wrong from `now` on, unless its account or address is locked (then
    /// false, nothing counted). The time is kept in the attempt, for ``release(_:)``.
    public mutating func reserve(_ attempt: inout LoginAttempt, now: Int64) -> Bool {
        guard !isLocked(account: attempt.account, address: attempt.address, now: now) else { return false }
        attempt.reservedAt = now
        if let account = attempt.account {
            Self.strike(&byAccount, account, limit: limit, window: windowMilliseconds, keyLimit: keyLimit, now: now)
        }
        if !attempt.address.isEmpty {
            Self.strike(&byAddress, attempt.address, limit: limit, window: windowMilliseconds, keyLimit: keyLimit, now: now)
        }
        return true
    }

    /// A reserved attempt whose password was right (or whose check could not be made): it no
    /// longer counts.
    public mutating func release(_ attempt: LoginAttempt) {
        guard let time = attempt.reservedAt else { return }
        if let account = attempt.account { byAccount[account]?.remove(at: time) }
        if !attempt.address.isEmpty { byAddress[attempt.address]?.remove(at: time) }
    }

    /// Tracked keys, for the bound's test.
    public var trackedKeys: Int { byAccount.count + byAddress.count }

    private static func strike(_ windows: inout [String: StrikeWindow], _ key: String, limit: Int, window: Int64, keyLimit: Int,
                               now: Int64) {
        if windows[key] == nil, windows.count >= keyLimit {
            // Full: forget the keys whose last attempt left the window; if none did, the oldest.
            windows = windows.filter { ($0.value.latest ?? 0) > now - window }
            if windows.count >= keyLimit, let oldest = windows.min(by: { ($0.value.latest ?? 0) < ($1.value.latest ?? 0) }) {
                windows[oldest.key] = nil
            }
        }
        _ = windows[key, default: StrikeWindow(limit: limit, windowMilliseconds: window)].strike(now: now)
    }
}
