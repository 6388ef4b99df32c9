import ChatProtocol

/// The bans of one room, or of the server, indexed so that checking a user costs three set
/// lookups whatever the number of bans (a banned room is checked on every message).
public struct BanList: Sendable, Equatable {
    public private(set) var byKey: [String: Ban] = [:]
    private var accounts: [String: Int] = [:]
    private var peers: [String: Int] = [:]
    private var addresses: [String: Int] = [:]
    private var devices: [String: Int] = [:]

    public init(_ bans: [Ban] = []) {
        for ban in bans { insert(ban) }
    }

    public var count: Int { byKey.count }
    public var isEmpty: Bool { byKey.isEmpty }

    public func ban(labelled label: String) -> Ban? { byKey[ChatValidation.nickKey(label)] }

    /// Adds a ban, replacing one with the same label.
    public mutating func insert(_ ban: Ban) {
        remove(label: ban.label)
        byKey[ban.key] = ban
        if let account = ban.account { accounts[account, default: 0] += 1 }
        if let peer = ban.peer { peers[peer, default: 0] += 1 }
        if let address = ban.address { addresses[address, default: 0] += 1 }
        if let device = ban.device { devices[device, default: 0] += 1 }
    }

    public mutating func remove(label: String) {
        guard let ban = byKey.removeValue(forKey: ChatValidation.nickKey(label)) else { return }
        if let account = ban.account { Self.decrement(&accounts, account) }
        if let peer = ban.peer { Self.decrement(&peers, peer) }
        if let address = ban.address { Self.decrement(&addresses, address) }
        if let device = ban.device { Self.decrement(&devices, device) }
    }

    /// Whether a connection with this identity is banned (``Ban/matches(account:accountCreated:peer:address:device:)``):
    /// by its account, its peer id or (with a shared store) its peer id's digest, or its address
    /// (a logged-in user's only for an account registered since that ban).
    public func matches(account: String?, accountCreated: Int64? = nil, peer: String, address: String,
                        device: String? = nil) -> Bool {
        guard !byKey.isEmpty else { return false }
        if peers[peer] != nil { return true }
        if let device, devices[device] != nil { return true }
        guard let account else { return addresses[address] != nil }
        if accounts[account] != nil { return true }
        // Rare: a logged-in user at an address a guest ban names; the ban's time decides.
        guard addresses[address] != nil else { return false }
        return byKey.values.contains { $0.matches(account: account, accountCreated: accountCreated, peer: peer, address: address) }
    }

    /// The ban that matches, for its reason.
    public func first(matching account: String?, accountCreated: Int64? = nil, peer: String, address: String,
                      device: String? = nil) -> Ban? {
        guard matches(account: account, accountCreated: accountCreated, peer: peer, address: address, device: device) else { return nil }
        return byKey.values.first { $0.matches(account: account, accountCreated: accountCreated, peer: peer, address: address, device: device) }
    }

    private static func decrement(_ counts: inout [String: Int], _ key: String) {
        if let count = counts[key], count > 1 { counts[key] = count - 1 } else { counts[key] = nil }
    }
}
