import ChatProtocol

/// With a shared store (`--cluster`): the accounts this node has read from it, so the core's
/// synchronous checks (hello, login, reserved nicks, moderation targets) answer from memory. A
/// request that needs accounts not read yet waits while they are (``ChatServerState``'s
/// prefetch); a check that still finds nothing known answers as a failed read would
/// (`unavailable`, or a nick counted as taken), never a guess. Writes go to the store through
/// actions (``AccountWrite``) and land here when stored; another node's change drops the entry
/// (``forget(_:)``), and everything is dropped when changes may have been missed.
public final class SharedAccountCache: AccountStore {
    struct Entry {
        var account: StoredAccount?
        var certificates: [String]
    }

    private var entries: [String: Entry] = [:]
    /// Oldest first, for the bound.
    private var order: [String] = []
    /// Names asked for and not known: the core reads them in the background.
    private(set) var missed: Set<String> = []
    /// Accounts kept at most; the oldest read go first.
    public static let capacity = 10_000

    public init() {}

    func isKnown(_ name: String) -> Bool { entries[ChatValidation.nickKey(name)] != nil }

    /// What the store answered for `name`: the account (nil: none) and its certificates.
    func remember(_ name: String, account: StoredAccount?, certificates: [String]) {
        let key = ChatValidation.nickKey(name)
        if entries[key] == nil {
            order.append(key)
            while order.count > Self.capacity { entries[order.removeFirst()] = nil }
        }
        entries[key] = Entry(account: account, certificates: certificates)
        missed.remove(key)
    }

    /// Another node changed the account: read it again when next needed.
    public func forget(_ name: String) {
        let key = ChatValidation.nickKey(name)
        guard entries.removeValue(forKey: key) != nil else { return }
        order.removeAll { $0 == key }
    }

    /// Changes may have been missed (the connection to the store was lost): forget everything.
    public func forgetAll() {
        entries = [:]
        order = []
    }

    func takeMissed() -> Set<String> {
        defer { missed = [] }
        return missed
    }

    private func entry(_ name: String) throws -> Entry {
        let key = ChatValidation.nickKey(name)
        guard let entry = entries[key] else {
            missed.insert(key)
            throw AccountStoreError("account '\(name)' has not been read from the shared store yet")
        }
        return entry
    }

    // MARK: AccountStore

    public func account(named name: String) throws -> StoredAccount? { try entry(name).account }

    public func certificates(ofAccount name: String) throws -> [String] { try entry(name).certificates }

    /// Writes are actions (the core never calls these with a shared store).
    public func create(_ account: StoredAccount, certificate: String?) throws { throw Self.writeRefused }
    public func setPasswordHash(_ hash: String?, ofAccount name: String) throws { throw Self.writeRefused }
    public func bind(certificate: String, toAccount name: String) throws { throw Self.writeRefused }
    public func unbind(certificate: String, fromAccount name: String) throws { throw Self.writeRefused }
    public func roomSettings(of room: String) throws -> RoomSettings { throw Self.writeRefused }
    public func save(_ change: PolicyChange) throws { throw Self.writeRefused }
    /// Read from the shared store by the glue when the node is ready.
    public func serverBans() throws -> [Ban] { [] }

    private static let writeRefused = AccountStoreError("a shared store is written through actions")

    // MARK: Applying stored writes

    func apply(_ write: AccountWrite) {
        switch write {
        case .create(let account, let certificate):
            remember(account.name, account: account, certificates: certificate.map { [$0] } ?? [])
        case .setPasswordHash(let name, let hash):
            guard var entry = entries[ChatValidation.nickKey(name)] else { return }
            entry.account?.passwordHash = hash
            entries[ChatValidation.nickKey(name)] = entry
        case .bind(let name, let certificate):
            guard var entry = entries[ChatValidation.nickKey(name)], !entry.certificates.contains(certificate) else { return }
            entry.certificates.append(certificate)
            entries[ChatValidation.nickKey(name)] = entry
        case .unbind(let name, let certificate):
            entries[ChatValidation.nickKey(name)]?.certificates.removeAll { $0 == certificate }
        case .retire(let name):
            entries[ChatValidation.nickKey(name)]?.account?.passwordHash = nil
            entries[ChatValidation.nickKey(name)]?.certificates = []
        }
    }
}

/// A change of an account in the shared store.
public enum AccountWrite: Sendable, Equatable {
    /// A new account (the store refuses a name that exists).
    case create(StoredAccount, certificate: String?)
    case setPasswordHash(account: String, hash: String?)
    case bind(account: String, certificate: String)
    case unbind(account: String, certificate: String)
    /// The operator console's `unregister`: the password and every certificate go, the name stays.
    case retire(account: String)

    public var account: String {
        switch self {
        case .create(let account, _): account.name
        case .setPasswordHash(let name, _), .bind(let name, _), .unbind(let name, _), .retire(let name): name
        }
    }
}

/// What waits for accounts from the shared store.
enum PendingAccounts {
    /// A request that needs accounts read first: handled again once they are.
    case prefetch(ClientID, ChatMessage)
    /// Accounts a check missed, read in the background.
    case background
    case register(ClientID, ChatMessage, nick: String)
    case passwordChange(ClientID, ChatMessage)
    case certificate(ClientID, ChatMessage, adding: Bool)
    /// A change made on the operator console, answered there.
    case console(answer: String)
    /// Another node changed an account this node's connections are logged in to: if it has no
    /// credential any more (unregistered), they are closed.
    case recheck(String)
    /// Nick candidates read before one is chosen: then the choice is made again.
    case nickCandidates(NickChoice)
}

/// A choice of nick that waits for its candidates to be read from the shared store.
enum NickChoice {
    /// A hello's device and first nicks (``ChatServerState/beginClusterHello``).
    case hello(ClientID, join: ChatMessage, peer: String, account: String?)
    /// A hello's later rounds of nicks (``ChatServerState/claimHelloNick``).
    case helloNick(ClientID, join: ChatMessage, peer: String, account: String?, round: Int)
    /// The nick a login takes (``ChatServerState/claimLoginNick``).
    case loginNick(ClientID, request: ChatMessage, account: String)
}
