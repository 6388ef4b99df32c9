import ChatProtocol

/// An account store that lives as long as the process: the server without `--db`, and the core's
/// tests (which can also make it fail, to see the core refuse rather than guess).
public final class InMemoryAccountStore: AccountStore {
    private var accounts: [String: StoredAccount] = [:]
    private var certificatesByAccount: [String: [String]] = [:]
    private var rooms: [String: RoomSettings] = [:]
    private var bans = BanList()
    /// Tests: every call throws while this is set.
    public var failure: String?

    public init() {}

    public func account(named name: String) throws -> StoredAccount? {
        try check()
        return accounts[ChatValidation.nickKey(name)]
    }

    public func create(_ account: StoredAccount, certificate: String?) throws {
        try check()
        let key = ChatValidation.nickKey(account.name)
        guard accounts[key] == nil else { throw AccountStoreError("account '\(account.name)' exists") }
        accounts[key] = account
        if let certificate { certificatesByAccount[key] = [certificate] }
    }

    public func setPasswordHash(_ hash: String?, ofAccount name: String) throws {
        try check()
        accounts[ChatValidation.nickKey(name)]?.passwordHash = hash
    }

    public func certificates(ofAccount name: String) throws -> [String] {
        try check()
        return certificatesByAccount[ChatValidation.nickKey(name)] ?? []
    }

    public func bind(certificate: String, toAccount name: String) throws {
        try check()
        let key = ChatValidation.nickKey(name)
        if certificatesByAccount[key]?.contains(certificate) != true { certificatesByAccount[key, default: []].append(certificate) }
    }

    public func unbind(certificate: String, fromAccount name: String) throws {
        try check()
        certificatesByAccount[ChatValidation.nickKey(name)]?.removeAll { $0 == certificate }
    }

    public func roomSettings(of room: String) throws -> RoomSettings {
        try check()
        return rooms[room] ?? RoomSettings()
    }

    public func serverBans() throws -> [Ban] {
        try check()
        return bans.byKey.values.sorted { $0.ts < $1.ts }
    }

    public func save(_ change: PolicyChange) throws {
        try check()
        switch change {
        case .banAdded(nil, let ban): bans.insert(ban)
        case .banRemoved(nil, let label): bans.remove(label: label)
        default:
            guard let room = change.room else { return }
            rooms[room, default: RoomSettings()].apply(change)
        }
    }

    private func check() throws {
        if let failure { throw AccountStoreError(failure) }
    }
}
