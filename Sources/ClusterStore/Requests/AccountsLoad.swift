import ChatServerCore
import EventRuntime
import RedisClient

/// Reads `names`' accounts (a hello's nick and every candidate it may be given, issue 23 item 5):
/// one script for all of them on one Redis, one per slot on a Redis Cluster (each account's keys
/// share a slot, different accounts seldom do), all at once. Issue 26, item 5: a hello read its
/// nine candidates with nine scripts, about half the Redis commands of a reconnect storm.
/// Retried while Redis is unavailable (``ReadPatience``); nil when it could not be read.
public struct AccountsLoad: StoreRequest {
    public let names: [String]
    let groups: [[String]]
    let patience: ReadPatience

    public init(names: [String], sharded: Bool, startedAt: MonotonicTime) {
        self.names = names
        groups = (sharded ? Dictionary(grouping: names) { RedisKeySlot.slot(of: ClusterKeys.account($0)) }.map(\.value) : [names])
            .filter { !$0.isEmpty }
        patience = ReadPatience(startedAt: startedAt)
    }

    public func start() -> StoreStep<[String: LoadedAccount?]?> {
        guard !groups.isEmpty else { return .done([:]) }
        return .send(groups.map { group in
            let keys = group.flatMap { [ClusterKeys.account($0), ClusterKeys.certificates($0)] }
            return StoreCommand(RedisCommand("EVAL", [Self.readAccountsScript, String(keys.count)] + keys), key: keys[0])
        })
    }

    public func answered(_ results: [Result<RedisReply, RoomStoreError>], now: MonotonicTime) -> StoreStep<[String: LoadedAccount?]?> {
        var loaded: [String: LoadedAccount?] = [:]
        for (group, result) in zip(groups, results) {
            switch result {
            case .failure(let error):
                return patience.retries(error, now: now) ? .wait(ReadPatience.retryDelay) : .done(nil)
            case .success(let reply):
                let parts = reply.elements ?? []
                for (index, name) in group.enumerated() {
                    let account = parts.count > 2 * index + 1 ? Self.account(hash: parts[2 * index], certificates: parts[2 * index + 1]) : nil
                    loaded[name] = .some(account)
                }
            }
        }
        return .done(loaded)
    }

    /// One account as ``readAccountsScript`` answers it; nil when there is none.
    static func account(hash: RedisReply, certificates: RedisReply) -> LoadedAccount? {
        let fields = RoomEventLog.hash(hash) ?? [:]
        guard let stored = fields["name"].map({ String(decoding: $0, as: UTF8.self) }) else { return nil }
        let passwordHash = fields["hash"].map { String(decoding: $0, as: UTF8.self) }
        let created = fields["created"].flatMap { Int64(String(decoding: $0, as: UTF8.self)) } ?? 0
        return LoadedAccount(account: StoredAccount(name: stored, passwordHash: passwordHash, created: created),
                             certificates: (certificates.elements ?? []).compactMap(\.text).sorted())
    }

    /// KEYS: each account's hash and certificates, in pairs. Answers each pair's HGETALL and
    /// SMEMBERS, in order; the certificates of a name that is no account are not read (an empty
    /// set): most names a hello reads are its nick's free suffixed forms, one command each.
    public static let readAccountsScript = """
        local replies = {}
        for i = 1, #KEYS, 2 do
            local account = redis.call('HGETALL', KEYS[i])
            table.insert(replies, account)
            table.insert(replies, #account > 0 and redis.call('SMEMBERS', KEYS[i + 1]) or {})
        end
        return replies
        """
}
