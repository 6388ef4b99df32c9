import ChatProtocol
import ChatServerCore
import ClusterStore
import QuicEngine
import RedisClient

/// Accounts in Redis: `{account:KEY}` is a hash (`name`, `hash` when it has a password,
/// `created`), `{account:KEY}:certs` the set of its certificates' fingerprints (one slot per
/// account). A change is published on `{accounts}:changes` (the account's key): every other node
/// forgets what it had read of it. Password attempts are counted in `{accounts}:attempts:account:KEY`
/// and `{accounts}:attempts:address:ADDRESS` (one slot for all, so one script counts both at once),
/// sorted sets of the attempts of the last window scored by the store's clock: the limit of
/// PROTOCOL.md section 7 holds across nodes, attempts still being hashed on any node included.
extension ClusterLink {

    /// Names this run's attempts apart from an earlier run's (the tickets start again at 1).
    private static let attemptRun = String(QuicTime.now().nanoseconds)

    private static func attemptKeys(_ attempt: LoginAttempt) -> [String] {
        (attempt.account.map { ["{accounts}:attempts:account:" + $0] } ?? [])
            + (attempt.address.isEmpty ? [] : ["{accounts}:attempts:address:" + attempt.address])
    }

    private func attemptMember(_ attempt: LoginAttempt) -> String { "\(options.node):\(Self.attemptRun):\(attempt.ticket)" }

    /// KEYS the attempt's counts; ARGV[1] the window (ms), ARGV[2] the limit, ARGV[3] the
    /// attempt. 1 when counted in every key, 0 (nothing counted) when one is full.
    static let reserveAttemptScript = """
        local time = redis.call('TIME')
        local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
        local window = tonumber(ARGV[1])
        for _, key in ipairs(KEYS) do
            redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
            if redis.call('ZCARD', key) >= tonumber(ARGV[2]) then return 0 end
        end
        for _, key in ipairs(KEYS) do
            redis.call('ZADD', key, now, ARGV[3])
            redis.call('PEXPIRE', key, window)
        end
        return 1
        """

    static let releaseAttemptScript = """
        for _, key in ipairs(KEYS) do redis.call('ZREM', key, ARGV[1]) end
        return 1
        """

    /// Counts a password attempt before its hash runs (fails closed: a store that cannot be
    /// asked is `unavailable`, never a free attempt).
    func reserveLoginAttempt(_ attempt: LoginAttempt, limit: Int, windowMilliseconds: Int64) {
        let keys = Self.attemptKeys(attempt)
        guard let first = keys.first else { return report(.loginAttemptReserved(attempt, .reserved)) }
        let command = RedisCommand("EVAL", [Self.reserveAttemptScript, String(keys.count)] + keys
                                   + [String(windowMilliseconds), String(limit), attemptMember(attempt)])
        client.send(command, key: first) { [weak self] result in
            switch RoomEventLog.storeResult(result) {
            case .failure: self?.report(.loginAttemptReserved(attempt, .unavailable))
            case .success(let reply): self?.report(.loginAttemptReserved(attempt, reply.integer == 1 ? .reserved : .locked))
            }
        }
    }

    /// Takes a counted attempt back (its password was right); lost with the store, it stays
    /// counted until the window passes: the safe side.
    func releaseLoginAttempt(_ attempt: LoginAttempt) {
        let keys = Self.attemptKeys(attempt)
        guard let first = keys.first else { return }
        client.send(RedisCommand("EVAL", [Self.releaseAttemptScript, String(keys.count)] + keys + [attemptMember(attempt)]),
                    key: first) { _ in }
    }

    var accountChangesSubscription: RedisSubscription {
        RedisSubscription(client.isCluster ? .shard : .channel, ClusterKeys.accountChangesChannel)
    }

    /// Reads `names`' accounts (a hello's nick and every candidate it may be given, issue 23
    /// item 5): one script for all of them on one Redis, one per slot on a Redis Cluster (each
    /// account's keys share a slot, different accounts seldom do). Issue 26, item 5: a hello read
    /// its nine candidates with nine scripts, about half the Redis commands of a reconnect storm.
    func loadAccounts(_ token: UInt64, names: [String], startedAt: QuicTime = .now()) {
        var loaded: [String: LoadedAccount?] = [:]
        var failure: RoomStoreError?
        func finish() {
            if failure?.isTransient == true, QuicTime.now() < startedAt + Self.readPatience {
                loop.schedule(at: .now() + Self.readRetryDelay) { [weak self] in self?.loadAccounts(token, names: names, startedAt: startedAt) }
                return
            }
            report(.accountsLoaded(token, failure == nil ? loaded : nil))
        }
        let groups = client.isCluster ? Dictionary(grouping: names) { RedisKeySlot.slot(of: ClusterKeys.account($0)) }.map(\.value) : [names]
        var remaining = groups.count { !$0.isEmpty }
        guard remaining > 0 else { return finish() }
        for group in groups where !group.isEmpty {
            let keys = group.flatMap { [ClusterKeys.account($0), ClusterKeys.certificates($0)] }
            client.send(RedisCommand("EVAL", [Self.readAccountsScript, String(keys.count)] + keys), key: keys[0]) { result in
                switch RoomEventLog.storeResult(result) {
                case .failure(let error):
                    failure = failure ?? error
                case .success(let reply):
                    let parts = reply.elements ?? []
                    for (index, name) in group.enumerated() {
                        let account = parts.count > 2 * index + 1 ? Self.account(hash: parts[2 * index], certificates: parts[2 * index + 1]) : nil
                        loaded[name] = .some(account)
                    }
                }
                remaining -= 1
                if remaining == 0 { finish() }
            }
        }
    }

    /// One account as ``readAccountsScript`` answers it; nil when there is none.
    private static func account(hash: RedisReply, certificates: RedisReply) -> LoadedAccount? {
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
    static let readAccountsScript = """
        local replies = {}
        for i = 1, #KEYS, 2 do
            local account = redis.call('HGETALL', KEYS[i])
            table.insert(replies, account)
            table.insert(replies, #account > 0 and redis.call('SMEMBERS', KEYS[i + 1]) or {})
        end
        return replies
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

    /// KEYS[1] the account, KEYS[2] its certificates: every credential goes, the name stays.
    static let retireAccountScript = """
        redis.call('HDEL', KEYS[1], 'hash')
        redis.call('DEL', KEYS[2])
        return 1
        """

    /// A registration, password or certificate change: a durable write (the client is told it is
    /// done, so with `--cluster-wait-replicas` the replicas have it first).
    func writeAccount(_ token: UInt64, _ write: AccountWrite) {
        let name = write.account
        let key = ClusterKeys.account(name)
        let command: RedisCommand
        switch write {
        case .create(let account, let certificate):
            command = RedisCommand("EVAL", Self.createAccountScript, "2", key, ClusterKeys.certificates(name), account.name,
                                   account.passwordHash ?? "", String(account.created), certificate ?? "")
        case .setPasswordHash(_, let hash?): command = RedisCommand("HSET", key, "hash", hash)
        case .setPasswordHash(_, nil): command = RedisCommand("HDEL", key, "hash")
        case .bind(_, let certificate): command = RedisCommand("SADD", ClusterKeys.certificates(name), certificate)
        case .unbind(_, let certificate): command = RedisCommand("SREM", ClusterKeys.certificates(name), certificate)
        case .retire: command = RedisCommand("EVAL", Self.retireAccountScript, "2", key, ClusterKeys.certificates(name))
        }
        client.send(command, key: key, durable: true) { [weak self] result in
            guard let self else { return }
            switch RoomEventLog.storeResult(result) {
            case .failure(let error):
                report(.accountWritten(token, .failed("\(error)"), write))
            case .success(let reply):
                if case .create = write, reply.integer == 0 { return report(.accountWritten(token, .exists, write)) }
                let channel = ClusterKeys.accountChangesChannel
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
