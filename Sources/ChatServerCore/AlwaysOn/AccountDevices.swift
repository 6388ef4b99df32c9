/// The connections of each account on this server (PROTOCOL.md section 13: all of them one
/// user), in the order they arrived, at most a limit each (section 16, `too-many-devices`). It
/// says when an account's first device arrives and its last one leaves: the moments others see
/// its status change and its read markers are loaded and forgotten.
public struct AccountDevices: Sendable, Equatable {
    public enum Arrival: Sendable, Equatable {
        /// The account had no device connected.
        case first
        /// Another device of an account already connected.
        case another
        /// Beyond the limit: the hello is `error too-many-devices` and not the hello.
        case tooMany
    }

    public enum Departure: Sendable, Equatable {
        /// The account's last device: it is offline now.
        case last(account: String)
        /// Other devices of the account remain.
        case others(account: String)
        /// Not a device of any account (a guest, or already gone).
        case none
    }

    private var devices: [String: [ClientID]] = [:]
    private var accountOf: [ClientID: String] = [:]

    public init() {}

    /// A connection logging in to `account` (its key), if `limit` allows another. One on another
    /// account is moved off it first; a caller that must tell the others calls ``leave(_:)`` before.
    public mutating func arrive(_ client: ClientID, account: String, limit: Int) -> Arrival {
        if accountOf[client] == account { return (devices[account]?.count ?? 0) > 1 ? .another : .first }
        let present = devices[account] ?? []
        guard present.count < limit else { return .tooMany }
        if let previous = accountOf[client] { _ = leave(client, previous) }
        devices[account, default: []].append(client)
        accountOf[client] = account
        return present.isEmpty ? .first : .another
    }

    /// A connection closed, or logged out of its account.
    public mutating func leave(_ client: ClientID) -> Departure {
        guard let account = accountOf[client] else { return .none }
        return leave(client, account)
    }

    private mutating func leave(_ client: ClientID, _ account: String) -> Departure {
        accountOf[client] = nil
        devices[account]?.removeAll { $0 == client }
        guard devices[account]?.isEmpty ?? true else { return .others(account: account) }
        devices[account] = nil
        return .last(account: account)
    }

    /// The account's connections, oldest first.
    public func devices(of account: String) -> [ClientID] { devices[account] ?? [] }

    public func account(of client: ClientID) -> String? { accountOf[client] }

    /// Accounts with at least one device.
    public var connectedAccounts: Int { devices.count }
}
