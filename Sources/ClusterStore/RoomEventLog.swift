import RedisClient

/// Rooms' events in Redis: append through ``RoomEventScript`` (EVALSHA, EVAL when the server
/// does not know the script yet), read back by seq to fill gaps, and the subscription that
/// carries a room's live events. Loop thread only, like its ``RedisClient``.
public final class RoomEventLog {
    public let client: RedisClient
    /// Events kept per room (at least; see ``RoomEventScript``).
    public let historyLength: Int
    /// How long a dedupe key is remembered (seconds).
    public let dedupeSeconds: Int
    /// Sharded pub/sub (SPUBLISH/SSUBSCRIBE) on a cluster, classic otherwise.
    public let sharded: Bool
    /// An encoded event larger than this is refused before it is sent.
    public static let maxEventBytes = 64 << 10
    /// The most events one read returns.
    public static let maxReadCount = 1000
    private var scriptSHA: [UInt8]?
    private var loadingScript = false

    public init(client: RedisClient, historyLength: Int, dedupeSeconds: Int = 600, sharded: Bool? = nil) {
        self.client = client
        self.historyLength = max(1, historyLength)
        self.dedupeSeconds = max(1, dedupeSeconds)
        self.sharded = sharded ?? client.isCluster
    }

    /// The subscription that receives `room`'s events as they are appended.
    public func subscription(room: String) -> RedisSubscription {
        RedisSubscription(sharded ? .shard : .channel, RoomKeys(room: room).channel)
    }

    /// Appends `event` to `room`: it gets the next seq, is stored and published, atomically.
    /// With a `dedupe` key (sender and message id), a second append with the same key within
    /// `dedupeSeconds` stores nothing and answers the first one's seq.
    ///
    /// With `afterSeq`, the event stored and published is `event`, the seq in decimal, `afterSeq`:
    /// the encoding of an event whose seq only Redis knows (`{..."seq":` and `,"ts":...}`).
    /// `meta` (one token, no spaces) is stored and published with it (``RoomEvent/meta``).
    /// `members` changes the room's members hash in the same step. An append with
    /// ``RoomMembersChange/removeHeld(byPrefix:keys:)`` that finds none of them held stores
    /// nothing and answers seq 0.
    ///
    /// `knownSeq` (the highest seq the caller knows the room reached) and `epoch` (the store's
    /// epoch key and the value the caller knows, on one Redis only) check that the store still
    /// has what the caller saw: if not, nothing is stored and the answer is
    /// ``RoomAppend/storeLost`` (``RoomEventScript``).
    public func append(room: String, event: [UInt8], afterSeq: [UInt8]? = nil, meta: [UInt8] = RoomEvent.noMeta,
                       members: RoomMembersChange? = nil, settings: RoomSettingsChange? = nil, dedupe: String? = nil,
                       knownSeq: Int64 = 0, epoch: (key: String, value: String)? = nil,
                       _ completion: @escaping (Result<RoomAppend, RoomStoreError>) -> Void) {
        let size = event.count + (afterSeq?.count ?? 0)
        guard size <= Self.maxEventBytes else {
            return completion(.failure(.tooLarge("event of \(size) bytes, more than \(Self.maxEventBytes)")))
        }
        guard !meta.isEmpty, meta.count <= RoomEvent.maxMetaBytes, !meta.contains(UInt8(ascii: " ")) else {
            return completion(.failure(.tooLarge("meta must be 1 to \(RoomEvent.maxMetaBytes) bytes without spaces")))
        }
        let keys = RoomKeys(room: room)
        var keyNames = [keys.seq, keys.events, keys.members, keys.settings]
        if let dedupe { keyNames.append(keys.sent(dedupe)) }
        if let epoch { keyNames.append(epoch.key) }
        var arguments: [[UInt8]] = [Array(String(keyNames.count).utf8)] + keyNames.map { Array($0.utf8) }
        arguments += [event, Array(String(historyLength).utf8), Array(keys.channel.utf8),
                      Array((sharded ? "SPUBLISH" : "PUBLISH").utf8), Array(String(dedupeSeconds).utf8), afterSeq ?? [], meta,
                      Array(String(max(0, knownSeq)).utf8), Array((epoch?.value ?? "").utf8)]
        arguments += settings?.arguments ?? [[], [], []]
        arguments += members.flatMap { $0.isEmpty ? nil : $0.arguments } ?? [[]]
        evaluate(arguments, key: keys.seq) { result in
            switch result {
            case .failure(let failure):
                completion(.failure(failure))
            case .success(let reply):
                guard let fields = reply.elements, fields.count == 2 || fields.count == 3, let seq = fields[0].integer,
                      let flag = fields[1].integer else {
                    return completion(.failure(.rejected("room-event script answered \(reply)")))
                }
                // 5: the store lost what the caller knew (nothing stored).
                if flag == 5 { return completion(.success(RoomAppend(seq: 0, duplicate: false, storeLost: true))) }
                // 4: a conditional setting was set already (nothing stored), with its value.
                if flag == 4 {
                    guard fields.count == 3, let existing = fields[2].text else {
                        return completion(.failure(.rejected("room-event script answered \(reply)")))
                    }
                    return completion(.success(RoomAppend(seq: 0, duplicate: false, existing: existing)))
                }
                // 1: a resend (dedupe key known); 3: a member moved here (nothing stored, the room's seq).
                completion(.success(RoomAppend(seq: seq, duplicate: flag == 1 || flag == 3)))
            }
        }
    }

    /// The events of `room` with seq greater than `seq`, oldest first, at most `limit` (and
    /// at most ``maxReadCount``): what a node reads to fill a gap before delivering anything later.
    public func events(room: String, after seq: Int64, limit: Int,
                       _ completion: @escaping (Result<[RoomEvent], RoomStoreError>) -> Void) {
        client.send(Self.eventsCommand(room: room, after: seq, limit: limit), key: RoomKeys(room: room).events) { result in
            completion(Self.storeResult(result).flatMap(Self.parseEntries))
        }
    }

    /// The command ``events(room:after:limit:_:)`` sends (to the slot of the room's ``RoomKeys/events``);
    /// its reply is read by ``events(_:)``.
    public static func eventsCommand(room: String, after seq: Int64, limit: Int) -> RedisCommand {
        RedisCommand("XRANGE", RoomKeys(room: room).events, "\(seq &+ 1)-0", "+", "COUNT", String(min(max(1, limit), maxReadCount)))
    }

    /// ``eventsCommand(room:after:limit:)``'s reply, oldest first.
    public static func events(_ reply: RedisReply) -> Result<[RoomEvent], RoomStoreError> { parseEntries(reply) }

    /// The newest `limit` events of `room` (at most ``maxReadCount``) with `after < seq < before`
    /// (nil: unbounded), oldest first: a replay, or a page of `history`.
    public func newestEvents(room: String, after: Int64?, before: Int64?, limit: Int,
                             _ completion: @escaping (Result<[RoomEvent], RoomStoreError>) -> Void) {
        client.send(Self.newestEventsCommand(room: room, after: after, before: before, limit: limit), key: RoomKeys(room: room).events) { result in
            completion(Self.storeResult(result).flatMap(Self.newestEvents))
        }
    }

    /// The command ``newestEvents(room:after:before:limit:_:)`` sends (to the slot of the room's
    /// ``RoomKeys/events``); its reply is read by ``newestEvents(_:)``.
    public static func newestEventsCommand(room: String, after: Int64?, before: Int64?, limit: Int) -> RedisCommand {
        let end = before.map { "(\($0)-0" } ?? "+"
        let start = after.map { "(\($0)-0" } ?? "-"
        return RedisCommand("XREVRANGE", RoomKeys(room: room).events, end, start, "COUNT", String(min(max(1, limit), maxReadCount)))
    }

    /// ``newestEventsCommand(room:after:before:limit:)``'s reply (newest first) in seq order.
    public static func newestEvents(_ reply: RedisReply) -> Result<[RoomEvent], RoomStoreError> { parseEntries(reply).map { $0.reversed() } }

    /// A room's state with the room's seq at that moment, read atomically: its members on every
    /// node and its settings; the events after that seq change them further.
    public struct RoomState: Sendable {
        public var seq: Int64
        public var members: [String: [UInt8]]
        public var settings: [String: [UInt8]]
    }

    /// The room's state (``RoomState``). At most `limit` members (a larger room answers `tooLarge`).
    public func state(room: String, limit: Int = 100_000, _ completion: @escaping (Result<RoomState, RoomStoreError>) -> Void) {
        client.send(Self.stateCommand(room: room, limit: limit), key: RoomKeys(room: room).seq) { result in
            completion(Self.storeResult(result).flatMap(Self.roomState))
        }
    }

    /// The command ``state(room:limit:_:)`` sends (served by the slot of the room's ``RoomKeys/seq``).
    public static func stateCommand(room: String, limit: Int = 100_000) -> RedisCommand {
        let keys = RoomKeys(room: room)
        return RedisCommand("EVAL", stateScript, "3", keys.seq, keys.members, keys.settings, String(limit))
    }

    /// ``stateCommand(room:limit:)``'s reply.
    public static func roomState(_ reply: RedisReply) -> Result<RoomState, RoomStoreError> {
        guard let parts = reply.elements, parts.count == 3, let seqText = parts[0].text, let seq = Int64(seqText),
              let members = hash(parts[1]), let settings = hash(parts[2]) else {
            return .failure(.rejected("room state answered \(reply)"))
        }
        return .success(RoomState(seq: seq, members: members, settings: settings))
    }

    static let stateScript = """
        if redis.call('HLEN', KEYS[2]) > tonumber(ARGV[1]) then return redis.error_reply('TOOLARGE room members') end
        return {redis.call('GET', KEYS[1]) or '0', redis.call('HGETALL', KEYS[2]), redis.call('HGETALL', KEYS[3])}
        """

    /// An HGETALL reply as a dictionary; nil when it is not one.
    public static func hash(_ reply: RedisReply) -> [String: [UInt8]]? {
        guard let flat = reply.elements, flat.count % 2 == 0 else { return nil }
        var fields: [String: [UInt8]] = [:]
        var index = 0
        while index < flat.count {
            guard let key = flat[index].text, let value = flat[index + 1].bytes else { return nil }
            fields[key] = value
            index += 2
        }
        return fields
    }

    /// The last seq assigned in `room` (0 when none was).
    public func lastSeq(room: String, _ completion: @escaping (Result<Int64, RoomStoreError>) -> Void) {
        let keys = RoomKeys(room: room)
        client.send(RedisCommand("GET", keys.seq), key: keys.seq) { result in
            completion(Self.storeResult(result).flatMap { reply in
                if reply == .null { return .success(0) }
                guard let value = reply.integer else { return .failure(.rejected("seq is \(reply)")) }
                return .success(value)
            })
        }
    }

    // MARK: Script

    private func evaluate(_ arguments: [[UInt8]], key: String, _ completion: @escaping (Result<RedisReply, RoomStoreError>) -> Void) {
        guard let sha = scriptSHA else {
            loadScript(key: key)
            return sendDurably(RedisCommand(arguments: [Array("EVAL".utf8), Array(RoomEventScript.source.utf8)] + arguments), key: key, completion)
        }
        // Durable: with `--cluster-wait-replicas` the ack waits for the replicas (WAIT).
        // The completion holds the log until the answer, as in ``loadScript(key:)``.
        client.send(RedisCommand(arguments: [Array("EVALSHA".utf8), sha] + arguments), key: key, durable: true) { [self] result in
            // A server that lost its script cache (restarted, failed over, SCRIPT FLUSH) ran
            // nothing: EVAL sends the script itself, and caches it there again.
            if case .success(.error(let text)) = result, text.hasPrefix("NOSCRIPT") {
                return sendDurably(RedisCommand(arguments: [Array("EVAL".utf8), Array(RoomEventScript.source.utf8)] + arguments),
                            key: key, completion)
            }
            completion(Self.storeResult(result))
        }
    }

    private func sendDurably(_ command: RedisCommand, key: String, _ completion: @escaping (Result<RedisReply, RoomStoreError>) -> Void) {
        client.send(command, key: key, durable: true) { result in completion(Self.storeResult(result)) }
    }

    /// Learns the script's SHA1 from SCRIPT LOAD (the same on every server).
    ///
    /// Its completion, like the others here, holds the log strongly: the client answers every
    /// command exactly once (a reply, a failure, `.stopped`), so that lasts until the answer, and
    /// the log calls nobody back but the caller's completion. `[weak self]` would give the log,
    /// which lives as long as its node, a weak-reference side table that, once the answer came,
    /// only the log's reference count points to (shifted, where LeakSanitizer cannot follow): the
    /// table of a live log reported as leaked at every exit (docs/SANITIZERS.md).
    private func loadScript(key: String) {
        guard !loadingScript else { return }
        loadingScript = true
        client.send(RedisCommand("SCRIPT", "LOAD", RoomEventScript.source), key: key) { [self] result in
            loadingScript = false
            if case .success(.bulk(let sha)) = result, sha.count == 40 { scriptSHA = sha }
        }
    }

    // MARK: Replies

    /// Error replies that say "not now" rather than "never": Redis loading its data after a
    /// restart, a cluster without a quorum or a master, a node demoted by a failover, a slot
    /// in the middle of a migration. The caller answers `unavailable` and the client resends.
    /// Redis refused the command before running it: nothing of it is stored.
    static let transientErrors = ["LOADING", "CLUSTERDOWN", "MASTERDOWN", "READONLY", "TRYAGAIN", "BUSY"]

    public static func storeResult(_ result: Result<RedisReply, RedisFailure>) -> Result<RedisReply, RoomStoreError> {
        switch result {
        case .success(.error(let text)):
            let code = text.prefix { $0 != " " }
            if code == "TOOLARGE" { return .failure(.tooLarge(text)) }
            return .failure(transientErrors.contains(String(code)) ? .notStored(text) : .rejected(text))
        case .success(let reply): return .success(reply)
        case .failure(let failure):
            switch failure {
            // Never sent, or every answer was a redirection (MOVED/ASK: not run there).
            case .unavailable, .limitExceeded, .redirection: return .failure(.notStored(failure.description))
            // Sent and unanswered, or run and not confirmed by replicas: it may be stored.
            case .connectionLost, .protocolViolation, .stopped, .notReplicated: return .failure(.unavailable(failure.description))
            }
        }
    }

    static func parseEntries(_ reply: RedisReply) -> Result<[RoomEvent], RoomStoreError> {
        guard let entries = reply.elements else { return .failure(.rejected("XRANGE answered \(reply)")) }
        var events: [RoomEvent] = []
        events.reserveCapacity(entries.count)
        for entry in entries {
            guard let parts = entry.elements, parts.count == 2, let id = parts[0].text,
                  let seq = Int64(id.prefix { $0 != "-" }), let fields = parts[1].elements,
                  fields.count >= 2, fields[0].text == "e", let payload = fields[1].bytes else {
                return .failure(.rejected("malformed stream entry \(entry)"))
            }
            let meta = fields.count >= 4 && fields[2].text == "m" ? fields[3].bytes ?? RoomEvent.noMeta : RoomEvent.noMeta
            events.append(RoomEvent(seq: seq, meta: meta, payload: payload))
        }
        return .success(events)
    }
}
