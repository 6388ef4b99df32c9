import RedisClient

/// What must be unique across nodes (a nick, a peer id, an account's session), held in Redis as
/// `key = "<node>/<client>"`. A lease has no expiry of its own: it lives as long as its node is
/// in the ``NodeDirectory``, and the node that reaps a lost node frees its leases with
/// `releaseAll`. The node records each lease it holds in `{node:X}:holds` (a second command: on a
/// cluster the lease and the record are in different slots) so that it can be found.
///
/// Taking a lease is a durable write (with `--cluster-wait-replicas`, confirmed by the replicas
/// before it is answered): a lease lost to a failover would let a second device take the same
/// nick. Releases are not: one lost leaves a lease its node no longer uses, which the same device
/// takes again and which is freed when that node restarts or is reaped.
public final class Leases {
    public let client: RedisClient

    public init(client: RedisClient) { self.client = client }

    /// The outcome of `take`: held by the caller now, or by `holder`.
    public enum Take: Equatable, Sendable {
        case taken
        case heldBy(String)
    }

    public static func nick(_ nick: String) -> String { "{nick:\(nick)}" }
    public static func peer(_ peer: String) -> String { "{peer:\(peer)}" }
    public static func accountSession(_ account: String) -> String { "{account:\(account)}:session" }
    public static func holds(node: String) -> String { "{node:\(node)}:holds" }

    /// KEYS[1] lease. ARGV[1] holder, ARGV[2] "same-owner" to take it over from a holder with the
    /// same owner (the part after the node: the same device reconnecting through another node).
    /// Takes a free lease; a lease already the caller's is kept.
    static let takeScript = """
        local current = redis.call('GET', KEYS[1])
        if not current then
          redis.call('SET', KEYS[1], ARGV[1])
          return {1, ARGV[1]}
        end
        if current == ARGV[1] then return {1, current} end
        if ARGV[2] == 'same-owner' and string.match(current, '/(.*)$') == string.match(ARGV[1], '/(.*)$') then
          redis.call('SET', KEYS[1], ARGV[1])
          return {1, current}
        end
        return {0, current}
        """

    /// KEYS[1] lease. ARGV[1] holder or holder prefix, ARGV[2] "exact" or "prefix". Deletes the
    /// lease only while it is still that holder's: a lease taken over meanwhile stays.
    static let releaseScript = """
        local current = redis.call('GET', KEYS[1])
        if not current then return 0 end
        if ARGV[2] == 'exact' and current ~= ARGV[1] then return 0 end
        if ARGV[2] == 'prefix' and string.sub(current, 1, #ARGV[1]) ~= ARGV[1] then return 0 end
        redis.call('DEL', KEYS[1])
        return 1
        """

    /// Takes `key` for `holder` ("node/owner") unless someone else holds it; with `sameOwner`,
    /// also from a holder of another node with the same owner.
    public func take(_ key: String, holder: String, node: String, sameOwner: Bool = false,
                     _ completion: @escaping (Result<Take, RoomStoreError>) -> Void) {
        client.send(Self.takeCommand(key, holder: holder, sameOwner: sameOwner), key: key, durable: true) { [client] result in
            switch RoomEventLog.storeResult(result).flatMap(Self.taken) {
            case .failure(let failure):
                completion(.failure(failure))
            case .success(.heldBy(let current)):
                completion(.success(.heldBy(current)))
            case .success(.taken):
                let record = Self.recordHold(key, node: node)
                client.send(record.command, key: record.key, durable: true) { record in
                    if case .failure(let failure) = RoomEventLog.storeResult(record) { return completion(.failure(failure)) }
                    completion(.success(.taken))
                }
            }
        }
    }

    /// ``takeScript`` for `key` and `holder` (see ``take(_:holder:node:sameOwner:_:)``).
    public static func takeCommand(_ key: String, holder: String, sameOwner: Bool) -> RedisCommand {
        RedisCommand("EVAL", takeScript, "1", key, holder, sameOwner ? "same-owner" : "exact")
    }

    /// ``takeScript``'s answer: taken (the hold still to record) or held by another.
    public static func taken(_ reply: RedisReply) -> Result<Take, RoomStoreError> {
        guard let fields = reply.elements, fields.count == 2, let flag = fields[0].integer, let current = fields[1].text else {
            return .failure(.rejected("take answered \(reply)"))
        }
        return .success(flag == 1 ? .taken : .heldBy(current))
    }

    /// `key` in the node's holds, so that whoever reaps the node frees it (a durable write: a
    /// lease taken and not recorded would outlive its node).
    public static func recordHold(_ key: String, node: String) -> (command: RedisCommand, key: String) {
        (RedisCommand("SADD", holds(node: node), key), holds(node: node))
    }

    /// KEYS[1] a device's lease, `node/connection/nick/account-key/address` (`-` for a guest's
    /// account). ARGV[1] the new holder, ARGV[2] the account key the new connection proved (''
    /// for none). Taken over unless the session holding it is logged in to another account: then
    /// {0, current}, nothing changed.
    static let takeOverDeviceScript = """
        local current = redis.call('GET', KEYS[1])
        if current then
          local held = string.match(current, '^[^/]*/[^/]*/[^/]*/([^/]*)')
          if held and held ~= '' and held ~= '-' and held ~= ARGV[2] then return {0, current} end
        end
        redis.call('SET', KEYS[1], ARGV[1])
        return {1, current or ''}
        """

    /// Takes a device's lease (`takeOverDeviceScript`) for `holder` unless the session holding it
    /// is logged in to an account other than `provenAccount`; answers whether it did and the
    /// previous (or keeping) holder (nil when free).
    public func takeOverDevice(_ key: String, holder: String, node: String, provenAccount: String?,
                               _ completion: @escaping (Result<(taken: Bool, holder: String?), RoomStoreError>) -> Void) {
        client.send(Self.takeOverDeviceCommand(key, holder: holder, provenAccount: provenAccount), key: key, durable: true) {
            [client] result in
            switch RoomEventLog.storeResult(result).flatMap(Self.takenOver) {
            case .failure(let failure):
                completion(.failure(failure))
            case .success(let outcome) where !outcome.taken:
                completion(.success(outcome))
            case .success(let outcome):
                let record = Self.recordHold(key, node: node)
                client.send(record.command, key: record.key, durable: true) { record in
                    if case .failure(let failure) = RoomEventLog.storeResult(record) { return completion(.failure(failure)) }
                    completion(.success(outcome))
                }
            }
        }
    }

    /// ``takeOverDeviceScript`` for a device's lease `key`.
    public static func takeOverDeviceCommand(_ key: String, holder: String, provenAccount: String?) -> RedisCommand {
        RedisCommand("EVAL", takeOverDeviceScript, "1", key, holder, provenAccount ?? "")
    }

    /// ``takeOverDeviceScript``'s answer: whether it took the lease (its hold still to record)
    /// and the previous or keeping holder (nil when free).
    public static func takenOver(_ reply: RedisReply) -> Result<(taken: Bool, holder: String?), RoomStoreError> {
        guard let fields = reply.elements, fields.count == 2, let flag = fields[0].integer, let current = fields[1].text else {
            return .failure(.rejected("take over answered \(reply)"))
        }
        return .success((flag == 1, current.isEmpty ? nil : current))
    }

    /// What ``claimHello`` did: whether it took the device's lease, the lease's previous value
    /// (nil when free) and the nick it took (nil when every candidate was another device's).
    public struct HelloLeases: Equatable, Sendable {
        public let deviceTaken: Bool
        public let previous: String?
        public let nick: String?

        public init(deviceTaken: Bool, previous: String?, nick: String?) {
            self.deviceTaken = deviceTaken
            self.previous = previous
            self.nick = nick
        }
    }

    /// A hello in one step (issue 26, item 5): ``takeOverDeviceScript``, then the first nick of
    /// ``takeScript`` with "same-owner", the device's nick through another node first, then the
    /// device's lease completed with that nick, and both leases in the node's holds.
    /// KEYS[1] the device's lease, KEYS[2] the node's holds, KEYS[3...] the candidates' leases.
    /// ARGV[1] node, ARGV[2] connection, ARGV[3] the device's digest (the nick leases' owner),
    /// ARGV[4] the account key the connection proved ('' for none), ARGV[5] its address,
    /// ARGV[6...] the candidates (as KEYS[3...]). Answers {1, previous or '', nick or ''}, or
    /// {0, current, ''} with nothing changed when the session holding the device is logged in to
    /// another account. The kept nick's lease is not in KEYS (it is read from the device's): the
    /// script runs on one Redis only; a Redis Cluster takes the steps one slot at a time.
    static let claimHelloScript = """
        local function fields(text)
          local parts = {}
          for part in string.gmatch(text .. '/', '([^/]*)/') do parts[#parts + 1] = part end
          return parts
        end
        local current = redis.call('GET', KEYS[1])
        local held = current and fields(current) or {}
        if held[4] and held[4] ~= '' and held[4] ~= '-' and held[4] ~= ARGV[4] then return {0, current, ''} end
        local owner = ARGV[1] .. '/' .. ARGV[3]
        local function take(key)
          local holder = redis.call('GET', key)
          if holder and holder ~= owner and string.match(holder, '/(.*)$') ~= ARGV[3] then return false end
          if holder ~= owner then redis.call('SET', key, owner) end
          redis.call('SADD', KEYS[2], key)
          return true
        end
        local nick = ''
        if held[1] and held[1] ~= ARGV[1] and held[3] and held[3] ~= '' then
          if take('{nick:' .. (string.gsub(held[3], '[A-Z]', string.lower)) .. '}') then nick = held[3] end
        end
        if nick == '' then
          for i = 3, #KEYS do
            if take(KEYS[i]) then
              nick = ARGV[i + 3]
              break
            end
          end
        end
        local lease = ARGV[1] .. '/' .. ARGV[2] .. '/'
        if nick ~= '' then lease = lease .. nick .. '/' .. (ARGV[4] ~= '' and ARGV[4] or '-') .. '/' .. ARGV[5] end
        redis.call('SET', KEYS[1], lease)
        redis.call('SADD', KEYS[2], KEYS[1])
        return {1, current or '', nick}
        """

    /// ``claimHelloScript`` on one Redis (not a Redis Cluster: its keys are in many slots).
    /// `nicks` are the candidates, `nickKeys` their ``nick(_:)`` leases.
    public func claimHello(device: String, nicks: [String], nickKeys: [String], node: String, connection: String, digest: String,
                           provenAccount: String?, address: String,
                           _ completion: @escaping (Result<HelloLeases, RoomStoreError>) -> Void) {
        let command = Self.claimHelloCommand(device: device, nicks: nicks, nickKeys: nickKeys, node: node, connection: connection, digest: digest,
                                             provenAccount: provenAccount, address: address)
        client.send(command, key: device, durable: true) { result in
            completion(RoomEventLog.storeResult(result).flatMap(Self.helloLeases))
        }
    }

    /// ``claimHelloScript`` (see ``claimHello(device:nicks:nickKeys:node:connection:digest:provenAccount:address:_:)``).
    public static func claimHelloCommand(device: String, nicks: [String], nickKeys: [String], node: String, connection: String, digest: String,
                                         provenAccount: String?, address: String) -> RedisCommand {
        let keys = [device, holds(node: node)] + nickKeys
        let arguments = [node, connection, digest, provenAccount ?? "", address] + nicks
        return RedisCommand("EVAL", [claimHelloScript, String(keys.count)] + keys + arguments)
    }

    /// ``claimHelloScript``'s answer.
    public static func helloLeases(_ reply: RedisReply) -> Result<HelloLeases, RoomStoreError> {
        guard let fields = reply.elements, fields.count == 3, let flag = fields[0].integer, let previous = fields[1].text,
              let nick = fields[2].text else {
            return .failure(.rejected("hello claim answered \(reply)"))
        }
        return .success(HelloLeases(deviceTaken: flag == 1, previous: previous.isEmpty ? nil : previous, nick: nick.isEmpty ? nil : nick))
    }

    /// Frees `key` if `holder` still holds it (with `prefix`, a holder starting with it); answers
    /// whether it did.
    public func release(_ key: String, holder: String, node: String, prefix: Bool = false,
                        _ completion: @escaping (Result<Bool, RoomStoreError>) -> Void) {
        client.send(Self.releaseCommand(key, holder: holder, prefix: prefix), key: key) { [client] result in
            let released = RoomEventLog.storeResult(result).map { $0.integer == 1 }
            let forget = Self.forgetHold(key, node: node)
            client.send(forget.command, key: forget.key) { _ in completion(released) }
        }
    }

    /// ``releaseScript`` for `key` and `holder` (see ``release(_:holder:node:prefix:_:)``).
    public static func releaseCommand(_ key: String, holder: String, prefix: Bool) -> RedisCommand {
        RedisCommand("EVAL", releaseScript, "1", key, holder, prefix ? "prefix" : "exact")
    }

    /// `key` out of the node's holds (released, or held by another now).
    public static func forgetHold(_ key: String, node: String) -> (command: RedisCommand, key: String) {
        (RedisCommand("SREM", holds(node: node), key), holds(node: node))
    }

    /// KEYS leases, ARGV[1] a holder prefix: deletes each lease still held by a holder with that
    /// prefix; answers the keys deleted.
    static let releaseAllScript = """
        local freed = {}
        for _, key in ipairs(KEYS) do
          local current = redis.call('GET', key)
          if current and string.sub(current, 1, #ARGV[1]) == ARGV[1] then
            redis.call('DEL', key)
            freed[#freed + 1] = key
          end
        end
        return freed
        """

    /// Leases one ``releaseAllScript`` frees at most: a lost node's 100,000 clients do not stop
    /// Redis for one long script.
    static let releaseAllBatch = 1_000

    /// Frees every lease a (lost) node still holds, as its reaper: answers the keys freed. One
    /// script per ``releaseAllBatch`` leases on one Redis, one per slot on a Redis Cluster (issue
    /// 26, item 5: a script per lease was two of a mover's scripts in a reconnect storm).
    public func releaseAll(node: String, _ completion: @escaping (Result<[String], RoomStoreError>) -> Void) {
        let holds = Self.holds(node: node)
        client.send(RedisCommand("SMEMBERS", holds), key: holds) { [client] result in
            switch RoomEventLog.storeResult(result) {
            case .failure(let failure):
                completion(.failure(failure))
            case .success(let reply):
                let batches = Self.releaseAllBatches(reply.elements?.compactMap(\.text) ?? [], node: node, sharded: client.isCluster)
                var freed: [String] = []
                var remaining = batches.count
                var failed: RoomStoreError?
                func finish() {
                    if let failed { return completion(.failure(failed)) }
                    // The record goes only once every lease in it was handled.
                    client.send(RedisCommand("DEL", holds), key: holds) { _ in completion(.success(freed.sorted())) }
                }
                guard remaining > 0 else { return finish() }
                for batch in batches {
                    client.send(batch.command, key: batch.key) { result in
                        switch RoomEventLog.storeResult(result) {
                        case .success(let reply): freed += reply.elements?.compactMap(\.text) ?? []
                        case .failure(let failure): failed = failure
                        }
                        remaining -= 1
                        if remaining == 0 { finish() }
                    }
                }
            }
        }
    }

    /// The scripts that free `keys` (the leases in a node's ``holds(node:)``) while `node` still
    /// holds them: one per ``releaseAllBatch`` keys, of one slot each on a Redis Cluster
    /// (`sharded`); each with the key whose slot serves it. Each answers the keys it freed.
    public static func releaseAllBatches(_ keys: [String], node: String, sharded: Bool) -> [(key: String, command: RedisCommand)] {
        let groups = sharded ? Array(Dictionary(grouping: keys) { RedisKeySlot.slot(of: $0) }.values) : [keys]
        return groups.flatMap { group in
            stride(from: 0, to: group.count, by: releaseAllBatch).map { start in
                let batch = Array(group[start..<min(start + releaseAllBatch, group.count)])
                return (batch[0], RedisCommand("EVAL", [releaseAllScript, String(batch.count)] + batch + ["\(node)/"]))
            }
        }
    }
}
