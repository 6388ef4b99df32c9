/// Who a policy question is about: what bans, invites and privileges are matched against. Built
/// from a connection (``ChatServerState/subject(of:)``) or from a hello not yet accepted.
struct PolicySubject {
    /// ``ChatProtocol/ChatValidation/nickKey(_:)`` of the account, nil for a guest.
    var accountKey: String?
    /// When the account was registered (a ban may spare accounts older than it).
    var accountCreated: Int64?
    var peer: String
    var address: String
    /// With a shared store, the digest of the peer id (how the store names the device); nil
    /// with a local store, where no ban or invite names a device.
    var device: String?

    var isGuest: Bool { accountKey == nil }
}
