import ChatServerCore
import ClusterStore
import QuicIO
import RedisClient

/// A node's connection to the shared store (`--cluster`): performs the core's shared-store
/// actions on Redis (room events through ``RoomEventLog``, leases, the node's inbox, the node
/// directory) and follows the rooms with members here (``RoomFeed``), handing every outcome back
/// to the app as core input (``ClusterReport``). Loop thread only.
final class ClusterLink {
    let options: ClusterOptions
    let client: RedisClient
    let log: RoomEventLog
    /// Other nodes' messages to this one (dm, REPLACED), a stream and channel like a room's.
    let inboxLog: RoomEventLog
    let leases: Leases
    let directory: NodeDirectory
    /// Renews the node's place from a thread of its own.
    private(set) var heartbeats: HeartbeatThread!
    private(set) var feed: RoomFeed!
    let report: (ClusterReport) -> Void
    let logger: (LogLevel, String, [String: String]) -> Void
    let loop: EventLoop
    /// The peer id of a connection of this node (to check a REPLACED sent by another node).
    let peerOf: (ClientID) -> String?
    /// The node has joined the directory and cleared its earlier run's leftovers.
    var isReady = false
    /// The mark of this node's `--files` folder (``FileDirectory/mark()``), checked against the
    /// other nodes' before it is ready.
    var filesFolderMark = ""
    let metrics = ClusterMetrics()
    /// The store's epoch as last seen (``checkEpoch``), and whether it was checked since the
    /// connection to the server that holds it was last lost: until it is, nothing is appended.
    var epoch: String?
    var epochChecked = false
    var epochCheckInFlight = false
    /// An append found data lost that the epoch check must recover from (``storeLost(room:)``).
    var lossPending = false
    var joining = false
    /// The holder of this node's name when a join found it taken, to see whether it renews.
    var heldName: (deadline: Int64, holder: String)?
    /// Another instance has this node's name: nothing more is done under it.
    var nameLost = false
    /// A planned stop left the directory: no more heartbeats or scans.
    var leaving = false
    /// The typing channels subscribed to, with their rooms.
    var typingRooms: [[UInt8]: String] = [:]
    /// Nodes this one is reaping now.
    var reaping: Set<String> = []
    var peerDigests = PeerDigestCache()
    /// How long a read is retried while Redis is unavailable before the core hears it failed.
    static let readPatience = QuicDuration.seconds(5)
    static let readRetryDelay = QuicDuration.milliseconds(200)
    /// Messages an inbox keeps (at least): a node cut off longer than that loses the oldest.
    static let inboxLength = 10_000
    /// Where other nodes publish users' status changes.
    static let presenceChannel = "{presence}"

    enum ClusterReport {
        case appended(UInt64, RoomAppendOutcome)
        case read(UInt64, [SharedRoomEvent]?)
        case delivered(SharedRoomEvent)
        case roomState(UInt64, seq: Int64, [MemberRecord]?, RoomSettings?)
        case serverBans([Ban])
        case accountsLoaded(UInt64, [String: LoadedAccount?]?)
        case accountWritten(UInt64, AccountWriteOutcome, AccountWrite)
        case accountChanged(String)
        /// Account changes may have been missed: every account must be read again.
        case accountChangesMissed
        /// The store's answer to a password attempt's reservation.
        case loginAttemptReserved(LoginAttempt, LoginAttemptReservation)
        case typing(room: String, [UInt8])
        case filesLoaded(UInt64, LoadedFiles?)
        /// Interrupted uploads expired in the store: their bytes go from the shared folder.
        case partialsExpired([String])
        /// Content a save of an upload's record evicted, no longer used by any record.
        case contentEvicted([String])
        case fileRecordStored(UInt64, FileRecordOutcome)
        case helloClaimed(UInt64, ClaimOutcome<HelloClaim>)
        case nickClaimed(UInt64, ClaimOutcome<String?>)
        case nickLookedUp(UInt64, ClaimOutcome<NickHolder?>)
        case deviceLookedUp(UInt64, ClaimOutcome<DeviceHolder?>)
        case directReceiptLookedUp(UInt64, ClaimOutcome<Int64?>)
        case nodeMessageSent(UInt64, ClaimOutcome<Bool>)
        case nodeMessage(NodeMessage)
        case remoteStatus(MemberRecord)
        case reap(node: String, room: String, [MemberRecord])
        case ready(Bool)
        case membershipLost
        /// Another instance holds this node's name: the node must stop serving.
        case nameTaken(String)
        /// This node's `--files` folder is not the other nodes' (theirs has the given mark): it must not serve.
        case foreignFilesFolder(String)
    }

    init(options: ClusterOptions, historyLength: Int, loop: EventLoop, peerOf: @escaping (ClientID) -> String?,
         logger: @escaping (LogLevel, String, [String: String]) -> Void, report: @escaping (ClusterReport) -> Void) {
        self.options = options
        self.loop = loop
        self.logger = logger
        self.report = report
        self.peerOf = peerOf
        var forward: ((RedisClientEvent) -> Void)?
        let settings = RedisConnectionSettings(database: options.database, replicasToWaitFor: options.waitReplicas)
        client = RedisClient(loop: loop, topology: options.topology, settings: settings) { event in forward?(event) }
        log = RoomEventLog(client: client, historyLength: historyLength)
        inboxLog = RoomEventLog(client: client, historyLength: Self.inboxLength)
        leases = Leases(client: client)
        directory = NodeDirectory(client: client, node: options.node, lifetime: options.nodeTimeout, interval: options.heartbeatInterval)
        feed = RoomFeed(log: log, loop: loop, deliver: { [unowned self] room, event in delivered(room: room, event) },
                        skipped: { [unowned self] room, after, before in
            metrics.eventsLostToTrimming += Int(before - after - 1)
            logger(.warning, "events lost to trimming", ["room": room, "after": String(after), "before": String(before)])
        })
        forward = { [unowned self] event in handle(event) }
        let server: RedisServerAddress? = if case .standalone(let address) = options.topology { address } else { nil }
        heartbeats = HeartbeatThread(loop: loop, server: server, database: options.database, renew: directory.renewCommand,
                                     interval: options.heartbeatInterval, lifetime: options.nodeTimeout) { [unowned self] in renewed($0) }
    }

    func start() {
        client.start()
        client.subscribe(presenceSubscription)
        client.subscribe(serverSubscription)
        client.subscribe(accountChangesSubscription)
        feed.follow(inboxRoom)
        heartbeats.start()
        loop.schedule(at: .now() + options.heartbeatInterval) { [weak self] in self?.heartbeat() }
    }

    /// The feed first: the client answers what waits with `.stopped`, and nothing of it may be
    /// delivered any more.
    func stop() {
        heartbeats.stop()
        feed.stop()
        client.stop()
    }

    /// The feed's reads in flight hold it (``RoomFeed/stop()``), and its `deliver` holds this
    /// link unowned.
    deinit { stop() }

    private func handle(_ event: RedisClientEvent) {
        switch event {
        case .connected(let server):
            logger(.info, "redis connected", ["server": "\(server)"])
            verifyStore(force: true)
        case .disconnected(let server, let failure):
            logger(.warning, "redis unreachable", ["server": "\(server)", "error": failure.description])
            if holdsEpoch(server) { epochChecked = false }
        case .slotMapUpdated(let masters):
            logger(.info, "redis cluster slots", ["masters": String(masters)])
            heartbeats.use(server: client.currentSlotMap?.owner(of: RedisKeySlot.slot(of: NodeDirectory.directoryKey)))
            // A failover may have moved the epoch to a master this node was connected to already
            // (no `connected` follows): it is checked there.
            verifyStore()
        case .subscriber(.message(let push)) where typingRooms[push.subscription.channel] != nil:
            receivedTyping(push)
        case .subscriber(.message(let push)) where push.subscription == presenceSubscription:
            receivedStatus(push.payload)
        case .subscriber(.message(let push)) where push.subscription == serverSubscription:
            // Another node changed the server bans: read them again (this node's own change is
            // in its core already).
            if !push.payload.elementsEqual("bans \(options.node)".utf8) { loadServerBans() }
        case .subscriber(.message(let push)) where push.subscription == accountChangesSubscription:
            receivedAccountChange(push.payload)
        case .subscriber(.subscribed(let subscription, restored: true)) where subscription == accountChangesSubscription:
            report(.accountChangesMissed)
        case .subscriber, .subscriptionsInterrupted:
            break
        }
        feed.handle(event)
    }

    private func delivered(room: String, _ event: RoomEvent) {
        if room == inboxRoom { return receivedInboxMessage(event) }
        metrics.eventsDelivered += 1
        if let made = EventStamp.milliseconds(in: event.payload) {
            metrics.eventDelay.observe(nanoseconds: UInt64(max(0, unixMilliseconds() - made)) * 1_000_000)
        }
        guard let shared = sharedEvent(room: room, event) else {
            return logger(.error, "undecodable room event", ["room": room, "seq": String(event.seq)])
        }
        report(.delivered(shared))
    }

    // MARK: Room events

    func append(_ append: RoomEventAppend) {
        guard epochChecked else { return report(.appended(append.token, .refused("the store is being checked after a reconnect"))) }
        let meta = Array(("\(append.kind.rawValue)/\(options.node)/\(append.origin.map(String.init) ?? "")"
                          + "/\(append.memberStatus?.rawValue ?? "")/\(append.token)").utf8)
        let dedupe = append.dedupe.map(digestedDedupeKey)
        let sent = QuicTime.now()
        log.append(room: append.room, event: append.beforeSeq, afterSeq: append.afterSeq, meta: meta,
                   members: append.membership.map(membersChange), settings: append.policy.flatMap(Self.settingsChange),
                   dedupe: dedupe, knownSeq: feed.delivered(append.room) ?? 0, epoch: appendEpoch) { [weak self, report, metrics] result in
            // Redis's answers only: a failure (5 s of waiting for a frozen Redis) is counted apart.
            if case .success = result { metrics.appendLatency.observe(nanoseconds: (QuicTime.now() - sent).nanoseconds) }
            switch result {
            case .success(let stored) where stored.storeLost:
                metrics.appends["lost", default: 0] += 1
                self?.storeLost(room: append.room)
                report(.appended(append.token, .refused("redis lost data this node had seen")))
            case .success(let stored) where stored.existing != nil:
                metrics.appends["refused", default: 0] += 1
                report(.appended(append.token, .settingTaken(stored.existing!)))
            case .success(let stored):
                metrics.appends[stored.duplicate ? "duplicate" : "stored", default: 0] += 1
                report(.appended(append.token, .stored(seq: stored.seq, duplicate: stored.duplicate)))
            case .failure(let error):
                metrics.appends["failed", default: 0] += 1
                report(.appended(append.token, error.isKnownNotStored ? .refused("\(error)") : .failed("\(error)")))
            }
        }
    }

    /// A dedupe key `PEER:ID` with the peer id as its digest: Redis never holds a peer id as it is.
    func digestedDedupeKey(_ key: String) -> String {
        let peer = key.prefix { $0 != ":" }
        return cachedDigest(ofPeer: String(peer)) + key.dropFirst(peer.count)
    }

    func read(_ read: RoomEventRead, startedAt: QuicTime = .now()) {
        let answer: (Result<[RoomEvent], RoomStoreError>) -> Void = { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let events):
                report(.read(read.token, events.compactMap { self.sharedEvent(room: read.room, $0) }))
            case .failure(let error) where error.isTransient && QuicTime.now() < startedAt + Self.readPatience:
                // Reads change nothing: a retry is safe, and the client waits for this one.
                loop.schedule(at: .now() + Self.readRetryDelay) { [weak self] in self?.read(read, startedAt: startedAt) }
            case .failure(let error):
                logger(.error, "room read failed", ["room": read.room, "error": "\(error)"])
                report(.read(read.token, nil))
            }
        }
        if read.newest {
            log.newestEvents(room: read.room, after: read.after, before: read.before, limit: read.limit, answer)
        } else {
            log.events(room: read.room, after: read.after ?? 0, limit: read.limit, answer)
        }
    }

    func follow(_ room: String, after: Int64) {
        feed.follow(room, after: after)
        typingRooms[typingSubscription(room).channel] = room
        client.subscribe(typingSubscription(room))
        // So that whoever reaps this node finds the rooms its users were in.
        client.send(RedisCommand("SADD", Self.roomsKey(of: options.node), room), key: Self.roomsKey(of: options.node)) { _ in }
    }

    func unfollow(_ room: String) {
        feed.unfollow(room)
        typingRooms[typingSubscription(room).channel] = nil
        client.unsubscribe(typingSubscription(room))
    }

    /// A room's typing channel: indicators are published there (`NODE JSON`), never stored.
    func typingSubscription(_ room: String) -> RedisSubscription {
        RedisSubscription(client.isCluster ? .shard : .channel, RoomKeys(room: room).typing)
    }

    func publishTyping(room: String, _ payload: [UInt8]) {
        let channel = RoomKeys(room: room).typing
        client.send(RedisCommand(arguments: [Array((client.isCluster ? "SPUBLISH" : "PUBLISH").utf8), Array(channel.utf8),
                                             Array("\(options.node) ".utf8) + payload]), key: channel) { _ in }
    }

    /// A stored or published event as the core takes it: the meta is `KIND/NODE/CLIENT/STATUS/TOKEN`:
    /// the client when a connection made it, STATUS for a member a `joined` or `nick` adds who
    /// is not `online` (else empty), TOKEN the node's append (its ack may go out with the event,
    /// before the reply). Events stored before the token was added have `KIND/NODE/CLIENT[/STATUS]`.
    func sharedEvent(room: String, _ event: RoomEvent) -> SharedRoomEvent? {
        let parts = event.meta.split(separator: UInt8(ascii: "/"), maxSplits: 4, omittingEmptySubsequences: false)
        guard (3...5).contains(parts.count), let kind = StoredEventKind(rawValue: String(decoding: parts[0], as: UTF8.self)) else {
            return nil
        }
        var origin: ClientID?
        var append: UInt64?
        if parts[1].elementsEqual(options.node.utf8) {
            origin = ClientID(String(decoding: parts[2], as: UTF8.self))
            append = parts.count == 5 ? UInt64(String(decoding: parts[4], as: UTF8.self)) : nil
        }
        let status = parts.count >= 4 ? PresenceStatus(rawValue: String(decoding: parts[3], as: UTF8.self)) : nil
        return SharedRoomEvent(room: room, seq: event.seq, kind: kind, origin: origin, append: append, payload: event.payload,
                               memberStatus: status)
    }

    private func receivedTyping(_ push: RedisPush) {
        guard let room = typingRooms[push.subscription.channel], let space = push.payload.firstIndex(of: UInt8(ascii: " ")),
              !push.payload[..<space].elementsEqual(options.node.utf8) else { return }
        report(.typing(room: room, Array(push.payload[(space + 1)...])))
    }

    // MARK: Names in Redis

    /// The rooms node `node` has followed (its reaper looks there for its members).
    static func roomsKey(of node: String) -> String { "{node:\(node)}:rooms" }

    /// The pseudo-room whose stream and channel are this node's inbox (room names have no `@`).
    var inboxRoom: String { Self.inboxRoom(of: options.node) }
    static func inboxRoom(of node: String) -> String { "@inbox:\(node)" }

    var presenceSubscription: RedisSubscription {
        RedisSubscription(client.isCluster ? .shard : .channel, Self.presenceChannel)
    }
}
