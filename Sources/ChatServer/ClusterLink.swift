import ChatServerCore
import ClusterStore
import QuicIO
import RedisClient

/// A node's connection to the shared store (`--cluster`): performs the core's shared-store
/// actions on Redis (room events through ``RoomEventLog``, the node's inbox, and ClusterStore's
/// requests through ``StoreRequestDriver``: accounts, leases, lookups, files, policy) and follows
/// the rooms with members here (``RoomFeed``), handing every outcome back to the app as core input
/// (``ClusterReport``). The node's life in the cluster (joining, heartbeat, epoch, reaping) is
/// ``ClusterNode``'s, performed by its ``ClusterNodeDriver``. Loop thread only.
final class ClusterLink {
    let options: ClusterOptions
    let client: RedisClient
    let log: RoomEventLog
    /// Other nodes' messages to this one (dm, REPLACED), a stream and channel like a room's.
    let inboxLog: RoomEventLog
    /// Performs the ordinary requests (ClusterStore's ``StoreRequest``s: accounts, leases, lookups, files, policy).
    let requests: StoreRequestDriver
    /// The directory's commands for this node (its instance token among them).
    let directory: NodeDirectoryCommands
    /// Renews the node's place from a thread of its own.
    private(set) var heartbeats: HeartbeatThread!
    private(set) var feed: RoomFeed!
    let report: (ClusterReport) -> Void
    let logger: (LogLevel, String, [String: String]) -> Void
    let loop: EventLoop
    /// The node's life in the cluster: joining, heartbeat, epoch, reaping (``ClusterNode``).
    private(set) var node: ClusterNodeDriver!
    let metrics = ClusterMetrics()
    /// Member records and identity leases as this node writes and reads them.
    let memberFormat: MemberRecordFormat
    let leaseFormat: LeaseFormat
    /// The typing channels subscribed to, with their rooms.
    var typingRooms: [[UInt8]: String] = [:]
    var peerDigests = PeerDigestCache()
    /// Messages an inbox keeps (at least): a node cut off longer than that loses the oldest.
    static let inboxLength = 10_000

    /// The node has joined the directory and cleared its earlier run's leftovers.
    var isReady: Bool { node.isReady }
    /// The store's epoch was checked since the connection to the server that holds it was last
    /// lost: until it is, nothing is appended.
    var epochChecked: Bool { node.epochChecked }
    var nodeFigures: ClusterNode.Figures { node.figures }
    /// The mark of this node's `--files` folder (``FileDirectory/mark()``), checked against the
    /// other nodes' before it is ready.
    var filesFolderMark: String {
        get { node.filesFolderMark }
        set { node.setFilesFolderMark(newValue) }
    }

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
        case directReceiptLookedUp(UInt64, ClaimOutcome<MessageReceipt?>)
        case nodeMessageSent(UInt64, ClaimOutcome<Bool>)
        case nodeMessage(NodeMessage)
        /// Another node asks to close connection `client` with REPLACED if it is still the device
        /// whose peer id has this digest (``PeerDigest``): only the app knows its connections' peers.
        case replaceRequested(client: ClientID, device: [UInt8])
        case remoteStatus(MemberRecord)
        case reap(node: String, room: String, [MemberRecord])
        case ready(Bool)
        case membershipLost
        /// Another instance holds this node's name: the node must stop serving.
        case nameTaken(String)
        /// This node's `--files` folder is not the other nodes' (theirs has the given mark): it must not serve.
        case foreignFilesFolder(String)
    }

    init(options: ClusterOptions, historyLength: Int, loop: EventLoop,
         logger: @escaping (LogLevel, String, [String: String]) -> Void, report: @escaping (ClusterReport) -> Void) {
        self.options = options
        self.loop = loop
        self.logger = logger
        self.report = report
        memberFormat = MemberRecordFormat(node: options.node)
        leaseFormat = LeaseFormat(node: options.node)
        var forward: ((RedisClientEvent) -> Void)?
        let settings = RedisConnectionSettings(database: options.database, replicasToWaitFor: options.waitReplicas)
        client = RedisClient(loop: loop, topology: options.topology, settings: settings) { event in forward?(event) }
        log = RoomEventLog(client: client, historyLength: historyLength)
        inboxLog = RoomEventLog(client: client, historyLength: Self.inboxLength)
        requests = StoreRequestDriver(client: client, loop: loop)
        directory = NodeDirectoryCommands(node: options.node, lifetime: options.nodeTimeout, interval: options.heartbeatInterval)
        feed = RoomFeed(log: log, loop: loop, deliver: { [unowned self] room, event in delivered(room: room, event) },
                        skipped: { [unowned self] room, after, before in
            metrics.eventsLostToTrimming += Int(before - after - 1)
            logger(.warning, "events lost to trimming", ["room": room, "after": String(after), "before": String(before)])
        })
        let machine = ClusterNode(ClusterNode.Configuration(directory: directory, heartbeatInterval: options.heartbeatInterval,
                                                            nodeTimeout: options.nodeTimeout, sharded: client.isCluster), now: .now())
        // Weak: the client answers what waits with `.stopped` when this link stops, in its deinit too.
        node = ClusterNodeDriver(machine, client: client, loop: loop,
                                 followed: { [weak self] in self?.followedRooms() ?? [] },
                                 report: { [weak self] outcome in self?.nodeReported(outcome) }, logger: logger,
                                 renewing: { [weak self] on in self?.heartbeats.setRenewing(on) })
        forward = { [unowned self] event in handle(event) }
        let server: RedisServerAddress? = if case .standalone(let address) = options.topology { address } else { nil }
        heartbeats = HeartbeatThread(loop: loop, server: server, database: options.database, renew: directory.renew,
                                     interval: options.heartbeatInterval, lifetime: options.nodeTimeout) { [unowned self] in node.renewed($0) }
    }

    func start() {
        client.start()
        client.subscribe(presenceSubscription)
        client.subscribe(serverSubscription)
        client.subscribe(accountChangesSubscription)
        feed.follow(inboxRoom)
        heartbeats.start()
        node.start()
    }

    /// The feed first: the client answers what waits with `.stopped`, and nothing of it may be
    /// delivered any more.
    func stop() {
        heartbeats.stop()
        feed.stop()
        node.stop()
        requests.stop()
        client.stop()
    }

    /// The feed's reads in flight hold it (``RoomFeed/stop()``), and its `deliver` holds this
    /// link unowned.
    deinit { stop() }

    private func handle(_ event: RedisClientEvent) {
        switch event {
        case .connected(let server):
            node.connected(server)
        case .disconnected(let server, let failure):
            node.disconnected(server, failure: failure, holdsEpoch: holdsEpoch(server))
        case .slotMapUpdated(let masters):
            heartbeats.use(server: client.currentSlotMap?.owner(of: RedisKeySlot.slot(of: NodeDirectory.directoryKey)))
            node.slotMapUpdated(masters: masters)
        case .subscriber(.message(let push)) where typingRooms[push.subscription.channel] != nil:
            receivedTyping(push)
        case .subscriber(.message(let push)) where push.subscription == presenceSubscription:
            receivedStatus(push.payload)
        case .subscriber(.message(let push)) where push.subscription == serverSubscription:
            // Another node changed the server bans: read them again (this node's own change is
            // in its core already).
            if PolicyWrite.isOthersBansChange(push.payload, thisNode: options.node) { node.serverBansChanged() }
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
        let meta = EventMeta.encode(append, node: options.node)
        let dedupe = append.dedupe.map(digestedDedupeKey)
        let sent = MonotonicTime.now()
        log.append(room: append.room, event: append.beforeSeq, afterSeq: append.afterSeq, meta: meta,
                   members: append.membership.map(memberFormat.membersChange), settings: append.policy.flatMap(PolicyFormat.settingsChange),
                   dedupe: dedupe, knownSeq: feed.delivered(append.room) ?? 0, epoch: node.appendEpoch) { [weak self, report, metrics] result in
            // Redis's answers only: a failure (5 s of waiting for a frozen Redis) is counted apart.
            if case .success = result { metrics.appendLatency.observe(nanoseconds: (MonotonicTime.now() - sent).nanoseconds) }
            let answer = AppendAnswer(result)
            metrics.appends[answer.figure, default: 0] += 1
            if answer.storeLost { self?.node.storeLost(room: append.room) }
            report(.appended(append.token, answer.outcome))
        }
    }

    /// A dedupe key `PEER:ID` with the peer id as its digest: Redis never holds a peer id as it is.
    func digestedDedupeKey(_ key: String) -> String {
        let peer = key.prefix { $0 != ":" }
        return cachedDigest(ofPeer: String(peer)) + key.dropFirst(peer.count)
    }

    func read(_ read: RoomEventRead) {
        requests.run(RoomEventsRead(read, node: options.node, startedAt: .now())) { [report, logger] outcome in
            switch outcome {
            case .read(let events): report(.read(read.token, events))
            case .failed(let error):
                logger(.error, "room read failed", ["room": read.room, "error": "\(error)"])
                report(.read(read.token, nil))
            }
        }
    }

    func follow(_ room: String, after: Int64) {
        feed.follow(room, after: after)
        typingRooms[typingSubscription(room).channel] = room
        client.subscribe(typingSubscription(room))
        // So that whoever reaps this node finds the rooms its users were in.
        let rooms = ClusterKeys.rooms(of: options.node)
        requests.send(StoreCommand(RedisCommand("SADD", rooms, room), key: rooms))
    }

    func unfollow(_ room: String) {
        feed.unfollow(room)
        typingRooms[typingSubscription(room).channel] = nil
        client.unsubscribe(typingSubscription(room))
    }

    /// A room's typing channel (``TypingIndicators``).
    func typingSubscription(_ room: String) -> RedisSubscription {
        RedisSubscription(client.isCluster ? .shard : .channel, RoomKeys(room: room).typing)
    }

    func publishTyping(room: String, _ payload: [UInt8]) {
        requests.send(TypingIndicators.publication(payload, room: room, node: options.node, sharded: client.isCluster))
    }

    /// A stored or published event as the core takes it (``EventMeta``).
    func sharedEvent(room: String, _ event: RoomEvent) -> SharedRoomEvent? { EventMeta.sharedEvent(room: room, event, node: options.node) }

    private func receivedTyping(_ push: RedisPush) {
        guard let room = typingRooms[push.subscription.channel],
              let indicator = TypingIndicators.received(push.payload, thisNode: options.node) else { return }
        report(.typing(room: room, indicator))
    }

    /// The rooms followed (the inbox too) with the last seq delivered in each.
    private func followedRooms() -> [(room: String, delivered: Int64)] { feed.followedRooms.map { ($0, feed.delivered($0) ?? 0) } }

    /// What the node's life brings the core.
    private func nodeReported(_ outcome: ClusterNode.Report) {
        switch outcome {
        case .ready: report(.ready(true))
        case .membershipLost: report(.membershipLost)
        case .nameTaken(let why): report(.nameTaken(why))
        case .reap(let lost, let room, let members): report(.reap(node: lost, room: room, members))
        case .serverBans(let bans): report(.serverBans(bans))
        case .foreignFilesFolder(let theirs): report(.foreignFilesFolder(theirs))
        }
    }

    // MARK: Names in Redis

    /// The pseudo-room whose stream and channel are this node's inbox.
    var inboxRoom: String { ClusterKeys.inboxRoom(of: options.node) }

    var presenceSubscription: RedisSubscription {
        RedisSubscription(client.isCluster ? .shard : .channel, ClusterKeys.presenceChannel)
    }
}
