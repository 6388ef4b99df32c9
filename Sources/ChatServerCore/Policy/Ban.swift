import ChatProtocol

/// One ban, of a room or of the whole server (PROTOCOL.md section 8): an account, or for a
/// guest its peer id and address. A guest ban holds for the device (its peer id) logged in or
/// not, for guests at the address, and for accounts at the address registered since the ban; an
/// account older than the ban is not shut out by a guest who shared its address (docs/PROTOCOL.md
/// sections 7-8, item 21; issue 23, finding 11: the banned guest registered and came back).
public struct Ban: Sendable, Equatable, Hashable {
    /// The name an `unban` uses: the account's name, or the guest's nick when it was banned.
    public var label: String
    /// The account's key (``ChatValidation/nickKey(_:)``) of an account ban.
    public var account: String?
    /// A guest ban's upper-case peer id and client address (IPv4, or the IPv6 /64).
    public var peer: String?
    public var address: String?
    /// A guest of another node banned through a node of several (`--cluster`): the digest of its
    /// peer id (``ChatServerState/peerDigest``), all the shared store knows of a device; matched
    /// like the peer id, by whichever node the device connects through.
    public var device: String?
    public var reason: String
    /// The nick of the operator who banned.
    public var by: String
    public var ts: Int64

    public init(label: String, account: String? = nil, peer: String? = nil, address: String? = nil, device: String? = nil,
                reason: String, by: String, ts: Int64) {
        self.label = label
        self.account = account
        self.peer = peer
        self.address = address
        self.device = device
        self.reason = reason
        self.by = by
        self.ts = ts
    }

    /// The key under which bans are unique and lifted.
    public var key: String { ChatValidation.nickKey(label) }

    /// Whether a connection with this identity is banned: `accountCreated` is when its account
    /// was registered (nil for a guest); `device`: its peer id's digest (only with a shared store).
    public func matches(account accountKey: String?, accountCreated: Int64? = nil, peer: String, address: String,
                        device: String? = nil) -> Bool {
        if let account { return accountKey == account }
        if self.peer == peer { return true }
        if let banned = self.device, banned == device { return true }
        guard let banned = self.address, banned == address else { return false }
        guard accountKey != nil else { return true }
        return (accountCreated ?? .max) > ts
    }
}
