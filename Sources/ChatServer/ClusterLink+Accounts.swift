import ChatProtocol
import ChatServerCore
import ClusterStore
import QuicEngine
import RedisClient

/// Accounts in Redis: `{account:KEY}` is a hash (`name`, `hash` when it has a password,
/// `created`), `{account:KEY}:certs` the set of its certificates' fingerprints (one slot per
/// account). A change is published on `{accounts}:changes` (the account's key): every other node
/// forgets what it had read of it. A wrong password is published on `{accounts}:login-failures`
/// (`NODE ACCOUNT-KEY ADDRESS`, the key `-` for a name that is no account): every node counts it,
/// so the limit of PROTOCOL.md section 7 holds across nodes.
extension ClusterLink {
    static let accountChangesChannel = "{accounts}:changes"
    static let loginFailuresChannel = "{accounts}:login-failures"

    var loginFailuresSubscription: RedisSubscription {
        RedisSubscription(client.isCluster ? .shard : .channel, Self.loginFailuresChannel)
    }

    func publishLoginFailure(account: String?, address: String) {
        let channel = Self.loginFailuresChannel
        client.send(RedisCommand(client.isCluster ? "SPUBLISH" : "PUBLISH", channel, "\(options.node) \(account ?? "-") \(address)"),
                    key: channel) { _ in }
    }

    func receivedLoginFailure(_ payload: [UInt8]) {
        let parts = String(decoding: payload, as: UTF8.self).split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] != options.node else { return }
        report(.loginFailed(account: parts[1] == "-" ? nil : String(parts[1]), address: String(parts[2])))
    }

    static func accountKey(_ name: String) -> String { "{account:\(ChatValidation.nickKey(name))}" }
    static func certificatesKey(_ name: String) -> String { accountKey(name) + ":certs" }

    var accountChangesSubscription: RedisSubscription {
        RedisSubscription(client.isCluster ? .shard : .channel, Self.accountChangesChannel)
    }

    func loadAccounts(_ token: UInt64, names: [String], startedAt: QuicTime = .now()) {
        var loaded: [String: LoadedAccount?] = [:]
        var remaining = names.count
        var failure: RoomStoreError?
        func finish() {
            if failure?.isTransient == true, QuicTime.now() < startedAt + Self.readPatience {
                loop.schedule(at: .now() + Self.readRetryDelay) { [weak self] in self?.loadAccounts(token, names: names, startedAt: startedAt) }
                return
            }
            report(.accountsLoaded(token, failure == nil ? loaded : nil))
        }
        guard remaining > 0 else { return finish() }
        for name in names {
            let key = Self.accountKey(name)
            // One script per account (both keys in its slot): the hash and the certificates at once.
            client.send(RedisCommand("EVAL", Self.readAccountScript, "2", key, Self.certificatesKey(name)), key: key) { result in
                switch RoomEventLog.storeResult(result) {
                case .failure(let error):
                    failure = failure ?? error
                case .success(let reply):
                    let parts = reply.elements ?? []
                    let fields = parts.first.flatMap(RoomEventLog.hash) ?? [:]
                    let certificates = parts.count > 1 ? (parts[1].elements ?? []).compactMap(\.text).sorted() : []
                    if let stored = fields["name"].map({ String(decoding: $0, as: UTF8.self) }) {
                        let hash = fields["hash"].map { String(decoding: $0, as: UTF8.self) }
                        let created = fields["created"].flatMap { Int64(String(decoding: $0, as: UTF8.self)) } ?? 0
                        loaded[name] = LoadedAccount(account: StoredAccount(name: stored, passwordHash: hash, created: created),
                                                     certificates: certificates)
                    } else {
                        loaded[name] = .some(nil)
                    }
                }
                remaining -= 1
                if remaining == 0 { finish() }
            }
        }
    }

    static let readAccountScript = """
        return {redis.call('HGETALL', KEYS[1]), redis.call('SMEMBERS', KEYS[2])}
        """

    /// KEYS[1] the account, KEYS[2] its certificates. ARGV[1] name, ARGV[2] hash ('' for none),
    /// ARGV[3] created, ARGV[4] a certificate ('' for none). 0 when the account exists.
    static let createAccountScript = """
        if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
        redis.call('HSET', KEYS[1], 'name', ARGV[1], 'created', ARGV[3])
        if ARGV[2] ~= '' then redis.call('HSET', KEYS[1], 'hash', ARGV[2]) end
        if ARGV[4] ~= '' then redis.call('SADD', KEYS[2], ARGV[4]) end
        return 1
        """

    /// A registration, password or certificate change: a durable write (the client is told it is
    /// done, so with `--cluster-wait-replicas` the replicas have it first).
    func writeAccount(_ token: UInt64, _ write: AccountWrite) {
        let name = write.account
        let key = Self.accountKey(name)
        let command: RedisCommand
        switch write {
        case .create(let account, let certificate):
            command = RedisCommand("EVAL", Self.createAccountScript, "2", key, Self.certificatesKey(name), account.name,
                                   account.passwordHash ?? "", String(account.created), certificate ?? "")
        case .setPasswordHash(_, let hash?): command = RedisCommand("HSET", key, "hash", hash)
        case .setPasswordHash(_, nil): command = RedisCommand("HDEL", key, "hash")
        case .bind(_, let certificate): command = RedisCommand("SADD", Self.certificatesKey(name), certificate)
        case .unbind(_, let certificate): command = RedisCommand("SREM", Self.certificatesKey(name), certificate)
        }
        client.send(command, key: key, durable: true) { [weak self] result in
            guard let self else { return }
            switch RoomEventLog.storeResult(result) {
            case .failure(let error):
                report(.accountWritten(token, .failed("\(error)"), write))
            case .success(let reply):
                if case .create = write, reply.integer == 0 { return report(.accountWritten(token, .exists, write)) }
                let channel = Self.accountChangesChannel
                client.send(RedisCommand(client.isCluster ? "SPUBLISH" : "PUBLISH", channel, "\(options.node) \(ChatValidation.nickKey(name))"),
                            key: channel) { _ in }
                report(.accountWritten(token, .written, write))
            }
        }
    }

    func receivedAccountChange(_ payload: [UInt8]) {
        let parts = String(decoding: payload, as: UTF8.self).split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0] != options.node else { return }
        report(.accountChanged(String(parts[1])))
    }
}
