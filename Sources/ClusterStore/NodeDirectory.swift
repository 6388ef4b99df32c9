import EventRuntime
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
/// A node's name is held by one running instance (issue 26, item 1): each process draws a random
/// instance token at start and the directory keeps it beside the deadline (`{nodes}:instances`).
/// A join finds a name whose deadline has not passed held by another token `taken` (the starter
/// watches it: a deadline that moves is a live instance, and it must not start; one that runs out
/// was a crash or a planned stop, and the name is free then); a renew that finds another token
/// answers `taken` (a newer instance has the name: this one must stop serving). A planned stop
/// (``leave(after:_:)``) marks the entry `stopping:` and sets its deadline to the end of its
/// handover: the scanner that claims it then reports it stopped, not lost.
///
/// Loop thread only.
public final class NodeDirectory {
    public enum Heartbeat: Equatable, Sendable {
        /// Renewed until Redis time `deadline` (ms).
        case alive(deadline: Int64)
        /// This node had been declared lost and reaped: it is not in the directory.
        case reaped
        /// Another instance holds the name until Redis time `deadline` (ms): a running one
        /// (`holder` its token), one handing over after a planned stop (`holder` `stopping:...`),
        /// or a claim of a reaper that is still taking the name's earlier run out (`reaping`).
        case taken(deadline: Int64, holder: String)
    }

    /// A node a scan claimed: `stopped` when it had left on purpose (``leave(after:_:)``), not lost.
    public struct Claim: Equatable, Sendable {
        public var node: String
        public var stopped: Bool

        public init(node: String, stopped: Bool) {
            self.node = node
            self.stopped = stopped
        }
    }

    public let client: RedisClient
    /// The directory's commands and replies for this node (``NodeDirectoryCommands``).
    public let commands: NodeDirectoryCommands
    public var node: String { commands.node }
    /// This process's token for `node` (random): what tells it from another process with the name.
    public var instance: String { commands.instance }
    public var lifetime: TimeSpan { commands.lifetime }
    public var reapTimeout: TimeSpan { commands.reapTimeout }
    /// How often the nodes renew and scan: the longest the directory goes unvisited while any
    /// node reaches it.
    public var interval: TimeSpan { commands.interval }
    static let key = "{nodes}"
    static let reapingKey = "{nodes}:reaping"
    static let seenKey = "{nodes}:seen"
    static let instancesKey = "{nodes}:instances"
    /// The holder a planned stop leaves in `{nodes}:instances` until its handover ends.
    static let stoppingPrefix = "stopping:"

    public init(client: RedisClient, node: String, instance: String = Hex.lowercase(RandomBytes().bytes(32)), lifetime: TimeSpan = .seconds(6),
                reapTimeout: TimeSpan = .seconds(30), interval: TimeSpan = .seconds(2)) {
        self.client = client
        commands = NodeDirectoryCommands(node: node, instance: instance, lifetime: lifetime, reapTimeout: reapTimeout, interval: interval)
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

    /// KEYS[1] {nodes}, KEYS[2] {nodes}:seen, KEYS[3] {nodes}:instances, KEYS[4] {nodes}:reaping.
    /// ARGV: node, lifetime ms, "join" or "renew", interval ms, instance token. A renew answers -1
    /// when the node is not there (reaped), {-2, deadline, holder} when another instance's token
    /// holds the name; a join answers {-2, deadline, holder} while another instance's deadline (or
    /// a reaper's claim of the name, holder `reaping`) has not passed; otherwise the new deadline.
    static let heartbeatScript = visitPrologue + """
        visit(KEYS[1], KEYS[2], tonumber(ARGV[4]))
        local holder = redis.call('HGET', KEYS[3], ARGV[1])
        local current = redis.call('ZSCORE', KEYS[1], ARGV[1])
        if ARGV[3] == 'renew' then
          if holder and holder ~= ARGV[5] then return {-2, tonumber(current or '0'), holder} end
          if not current then return -1 end
        else
          if current and tonumber(current) > now and holder ~= ARGV[5] then
            return {-2, tonumber(current), holder or ''}
          end
          local claim = redis.call('ZSCORE', KEYS[4], ARGV[1])
          if claim and tonumber(claim) > now then return {-2, tonumber(claim), 'reaping'} end
        end
        local deadline = now + tonumber(ARGV[2])
        redis.call('ZADD', KEYS[1], deadline, ARGV[1])
        redis.call('HSET', KEYS[3], ARGV[1], ARGV[5])
        return deadline
        """

    /// KEYS[1] {nodes}, KEYS[2] {nodes}:instances. ARGV: node, instance token, handover ms. While
    /// the name is still this instance's: its deadline becomes the end of the handover and its
    /// holder `stopping:TOKEN`. Answers 1, or 0 when the name was no longer this instance's.
    static let leaveScript = """
        if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then return 0 end
        local time = redis.call('TIME')
        local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
        redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
        redis.call('HSET', KEYS[2], ARGV[1], 'stopping:' .. ARGV[2])
        return 1
        """

    /// KEYS[1] {nodes}, KEYS[2] {nodes}:reaping, KEYS[3] {nodes}:seen, KEYS[4] {nodes}:instances.
    /// ARGV: reap timeout ms, interval ms. Moves every node past its deadline, and every claim past
    /// its reap deadline, to this caller: answered once, as a flat list of name, and `stopped` (it
    /// left on purpose) or `lost`. The claimed name's instance is forgotten: it is nobody's now.
    static let claimScript = visitPrologue + """
        visit(KEYS[1], KEYS[3], tonumber(ARGV[2]))
        local claimed = {}
        for _, name in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)) do
          redis.call('ZREM', KEYS[1], name)
          local holder = redis.call('HGET', KEYS[4], name)
          redis.call('HDEL', KEYS[4], name)
          local stopped = holder and string.sub(holder, 1, 9) == 'stopping:'
          table.insert(claimed, name)
          table.insert(claimed, stopped and 'stopped' or 'lost')
        end
        for _, name in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)) do
          table.insert(claimed, name)
          table.insert(claimed, 'lost')
        end
        for i = 1, #claimed, 2 do
          redis.call('ZADD', KEYS[2], now + tonumber(ARGV[1]), claimed[i])
        end
        return claimed
        """

    /// Enters the directory (at start, or again after being reaped).
    public func join(_ completion: @escaping (Result<Heartbeat, RoomStoreError>) -> Void) {
        client.send(commands.join, key: Self.key) { result in
            completion(RoomEventLog.storeResult(result).flatMap(Self.heartbeat))
        }
    }

    /// Renews this node's deadline.
    public func renew(_ completion: @escaping (Result<Heartbeat, RoomStoreError>) -> Void) {
        client.send(commands.renew, key: Self.key) { result in
            completion(RoomEventLog.storeResult(result).flatMap(Self.heartbeat))
        }
    }

    /// The renew as a command, for a heartbeat sent from another thread on a connection of its
    /// own (its reply read with ``heartbeat(_:)``); the key whose slot serves it is ``key``.
    public var renewCommand: RedisCommand { commands.renew }

    /// The key of the directory (its slot is the directory's server on a Redis Cluster).
    public static var directoryKey: String { key }

    /// A heartbeat script's reply (``heartbeatScript``).
    public static func heartbeat(_ reply: RedisReply) -> Result<Heartbeat, RoomStoreError> { NodeDirectoryCommands.heartbeat(reply) }

    /// A planned stop: the name stays this instance's for `handover` more (its clients move to
    /// other nodes meanwhile and keep their rooms, quietly), then the scanner that claims it reaps
    /// what is left as for a lost node but reports it ``Claim/stopped``. `false` when the name
    /// was no longer this instance's.
    public func leave(after handover: TimeSpan, _ completion: @escaping (Result<Bool, RoomStoreError>) -> Void) {
        client.send(commands.leave(after: handover), key: Self.key) { result in
            completion(RoomEventLog.storeResult(result).map(NodeDirectoryCommands.left))
        }
    }

    /// The nodes this caller must reap now (lost, or left by a reaper that died).
    public func claimLost(_ completion: @escaping (Result<[String], RoomStoreError>) -> Void) {
        claim { completion($0.map { $0.map(\.node) }) }
    }

    /// The nodes this caller must reap now, each with whether it stopped on purpose.
    public func claim(_ completion: @escaping (Result<[Claim], RoomStoreError>) -> Void) {
        client.send(commands.claim, key: Self.key) { result in
            completion(RoomEventLog.storeResult(result).flatMap(NodeDirectoryCommands.claims))
        }
    }

    /// `lost` has been reaped: its claim is closed.
    public func finishedReaping(_ lost: String, _ completion: @escaping (Result<Void, RoomStoreError>) -> Void) {
        client.send(commands.finishedReaping(lost), key: Self.key) { result in
            completion(RoomEventLog.storeResult(result).map { _ in () })
        }
    }

    /// The nodes in the directory with their deadlines (Redis time, ms).
    public func members(_ completion: @escaping (Result<[String: Int64], RoomStoreError>) -> Void) {
        client.send(commands.members, key: Self.key) { result in
            completion(RoomEventLog.storeResult(result).flatMap(NodeDirectoryCommands.members))
        }
    }
}
