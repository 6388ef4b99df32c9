/// The read markers of the accounts connected here (PROTOCOL.md sections 13 and 17): for each, the
/// highest seq read per room (by name) or conversation (`@` and the other account's key). They
/// only move forward. Loaded from the store when an account's first device arrives and forgotten
/// when its last leaves, so they cost memory only for accounts that are connected.
public struct ReadMarkers: Sendable, Equatable {
    private var markers: [String: [String: Int64]] = [:]

    public init() {}

    /// The markers the store keeps for `account` (its key), as its first device arrives.
    public mutating func load(_ stored: [String: Int64], for account: String) {
        markers[account] = stored
    }

    /// The account's last device left.
    public mutating func forget(_ account: String) {
        markers[account] = nil
    }

    public func marker(of account: String, in target: String) -> Int64 {
        markers[account]?[target] ?? 0
    }

    public func markers(of account: String) -> [String: Int64] {
        markers[account] ?? [:]
    }

    /// Moves the marker to `read`; false when it was there or beyond already (section 17: such a
    /// `read` is not stored, not forwarded, not answered).
    public mutating func raise(_ account: String, in target: String, to read: Int64) -> Bool {
        guard read > marker(of: account, in: target) else { return false }
        markers[account, default: [:]][target] = read
        return true
    }

    /// A conversation's key among an account's markers: `@` cannot start a room name.
    public static func conversationTarget(with account: String) -> String { "@" + account }
}
