import QuicEngine
import RedisClient

/// The nodes of one chat system and which of them are alive, in Redis: each node renews its
/// deadline in the sorted set `{nodes}` (Redis's clock, so the nodes' clocks need not agree), and
/// each scans for nodes past their deadline. A lost node is claimed by exactly one scanner, which
/// reaps it (its users `left` with `node-lost`, its leases freed) and then calls
/// `finishedReaping`; a claim not finished within `reapTimeout` (the reaper died too) is handed to
/// the next scanner. A node that was declared lost learns it from its next heartbeat (`.reaped`):
/// it must close its clients, whose nicks are no longer its.
///
/// With `interval` 2 s and `lifetime` 6 s (the defaults) a node that stops is declared lost within
/// 8 s, under the 10 s of PROTOCOL.md section 10.
///
/// Time the directory itself could not be reached (Redis down, restarted, or its shard failing
/// over: no node renewed or scanned) does not count against the nodes: the first script to run
/// afterwards moves every deadline on by the time the directory went unvisited beyond `interval`
/// (`{nodes}:seen` holds the last visit), so nodes that could not renew meanwhile are not
/// declared lost by the first scanner back; a node that really stopped is found that much later.
/// Loop thread only.
public final class NodeDirectory {
    public enum Heartbeat: Equatable, Sendable {
        /// Renewed until Redis time `deadline` (ms).
        case alive(deadline: Int64)
        /// This node had been declared lost and reaped: it is not in the directory.
        case reaped
    }

    public let client: RedisClient
    public let node: String
    public let lifetime: QuicDuration
    public let reapTimeout: QuicDuration
    /// How often the nodes renew and scan: the longest the directory goes unvisited while any
    /// node reaches it.
    public let interval: QuicDuration
    static let key = "{nodes}"
    static let reapingKey = "{nodes}:reaping"
    static let seenKey = "{nodes}:seen"

    public init(client: RedisClient, node: String, lifetime: QuicDuration = .seconds(6), reapTimeout: QuicDuration = .seconds(30),
                interval: QuicDuration = .seconds(2)) {
        self.client = client
        self.node = node
        self.lifetime = lifetime
        self.reapTimeout = reapTimeout
        self.interval = interval
    }

    /// The start of both scripts: `now` (Redis's clock, ms), and the visit recorded in `seen`
    /// (`{nodes}:seen`) after every deadline in `nodes` was moved on by the time the directory
    /// went unvisited beyond `pause` ms.
    static let visitPrologue = """
        local time = redis.call('TIME')
        local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
        local function visit(nodes, seen, pause)
          local last = tonumber(redis.call('GET', seen) or '0')
          if last > 0 and now - last > pause then
            local entries = redis.call('ZRANGE', nodes, 0, -1, 'WITHSCORES')
            for i = 1, #entries, 2 do
              redis.call('ZADD', nodes, tonumber(entries[i + 1]) + now - last - pause, entries[i])
            end
          end
          redis.call('SET', seen, now)
        end

        """

    /// KEYS[1] {nodes}, KEYS[2] {nodes}:seen. ARGV: node, lifetime ms, "join" or "renew", interval
    /// ms. A renew of a node that is not there (reaped) adds nothing and answers -1; otherwise the
    /// new deadline.
    static let heartbeatScript = visitPrologue + """
        visit(KEYS[1], KEYS[2], tonumber(ARGV[4]))
        if ARGV[3] == 'renew' and not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return -1 end
        local deadline = now + tonumber(ARGV[2])
        redis.call('ZADD', KEYS[1], deadline, ARGV[1])
        return deadline
        """

    /// KEYS[1] {nodes}, KEYS[2] {nodes}:reaping, KEYS[3] {nodes}:seen. ARGV: reap timeout ms,
    /// interval ms. Moves every node past its deadline, and every claim past its reap deadline,
    /// to this caller: answered once.
    static let claimScript = visitPrologue + """
        visit(KEYS[1], KEYS[3], tonumber(ARGV[2]))
        local claimed = {}
        for _, name in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)) do
          redis.call('ZREM', KEYS[1], name)
          table.insert(claimed, name)
        end
        for _, name in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)) do
          table.insert(claimed, name)
        end
        for _, name in ipairs(claimed) do
          redis.call('ZADD', KEYS[2], now + tonumber(ARGV[1]), name)
        end
        return claimed
        """

    /// Enters the directory (at start, or again after being reaped).
    public func join(_ completion: @escaping (Result<Heartbeat, RoomStoreError>) -> Void) { beat("join", completion) }

    /// Renews this node's deadline.
    public func renew(_ completion: @escaping (Result<Heartbeat, RoomStoreError>) -> Void) { beat("renew", completion) }

    private func beat(_ mode: String, _ completion: @escaping (Result<Heartbeat, RoomStoreError>) -> Void) {
        let command = RedisCommand("EVAL", Self.heartbeatScript, "2", Self.key, Self.seenKey, node, String(lifetime.nanoseconds / 1_000_000),
                                   mode, String(interval.nanoseconds / 1_000_000))
        client.send(command, key: Self.key) { result in
            completion(RoomEventLog.storeResult(result).flatMap { reply in
                guard let value = reply.integer else { return .failure(.rejected("heartbeat answered \(reply)")) }
                return .success(value < 0 ? .reaped : .alive(deadline: value))
            })
        }
    }

    /// The nodes this caller must reap now (lost, or left by a reaper that died).
    public func claimLost(_ completion: @escaping (Result<[String], RoomStoreError>) -> Void) {
        let command = RedisCommand("EVAL", Self.claimScript, "3", Self.key, Self.reapingKey, Self.seenKey,
                                   String(reapTimeout.nanoseconds / 1_000_000), String(interval.nanoseconds / 1_000_000))
        client.send(command, key: Self.key) { result in
            completion(RoomEventLog.storeResult(result).flatMap { reply in
                guard let names = reply.elements?.compactMap(\.text) else { return .failure(.rejected("claim answered \(reply)")) }
                return .success(names)
            })
        }
    }

    /// `lost` has been reaped: its claim is closed.
    public func finishedReaping(_ lost: String, _ completion: @escaping (Result<Void, RoomStoreError>) -> Void) {
        client.send(RedisCommand("ZREM", Self.reapingKey, lost), key: Self.key) { result in
            completion(RoomEventLog.storeResult(result).map { _ in () })
        }
    }

    /// The nodes in the directory with their deadlines (Redis time, ms).
    public func members(_ completion: @escaping (Result<[String: Int64], RoomStoreError>) -> Void) {
        client.send(RedisCommand("ZRANGE", Self.key, "0", "-1", "WITHSCORES"), key: Self.key) { result in
            completion(RoomEventLog.storeResult(result).flatMap { reply in
                guard let flat = reply.elements, flat.count % 2 == 0 else { return .failure(.rejected("ZRANGE answered \(reply)")) }
                var members: [String: Int64] = [:]
                for index in stride(from: 0, to: flat.count, by: 2) {
                    guard let name = flat[index].text, let score = flat[index + 1].text.flatMap({ Double($0) }) else { continue }
                    members[name] = Int64(score)
                }
                return .success(members)
            })
        }
    }
}
