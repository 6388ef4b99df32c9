import ChatServerCore
import EventRuntime
import RedisClient

/// A node of several's life in the shared store, sans-IO: joining (Redis checked for eviction,
/// the directory joined, what an earlier run under the name left reaped, the server bans read,
/// the files store prepared, then ready), the heartbeat (the epoch checked, lost nodes claimed and
/// reaped, the other nodes counted), the epoch and the recovery from a Redis that lost its data,
/// the name held by another instance, renewals' answers and a planned stop.
///
/// It takes Redis's replies, timer firings and events as input and returns ``Action``s: commands
/// to send (each with an id its reply comes back with), timers to set, reports for the core, log
/// lines and whether the heartbeat thread renews. ``ClusterNodeDriver`` performs them on a
/// ``RedisClient`` and an event loop; the tests perform them on a scripted or in-memory Redis.
public struct ClusterNode {
    public struct Configuration: Sendable {
        /// The node's name and the directory's commands for it (its instance token, lifetime, interval).
        public var directory: NodeDirectoryCommands
        /// How often the node renews, scans and checks the epoch, and how long a failed join waits.
        public var heartbeatInterval: TimeSpan
        /// How long a planned stop keeps the name for its clients to move (``leave()``).
        public var nodeTimeout: TimeSpan
        /// A Redis Cluster (sharded channels, keys grouped by slot).
        public var sharded: Bool
        /// The mark of this node's `--files` folder, checked against the other nodes' before it is ready.
        public var filesFolderMark: String
        /// A fresh epoch token (random: two nodes that find the epoch missing at once must not agree by chance).
        public var epochCandidate: @Sendable () -> String

        public var node: String { directory.node }

        public init(directory: NodeDirectoryCommands, heartbeatInterval: TimeSpan, nodeTimeout: TimeSpan, sharded: Bool,
                    filesFolderMark: String = "", epochCandidate: @escaping @Sendable () -> String = { Hex.lowercase(RandomBytes().bytes(32)) }) {
            self.directory = directory
            self.heartbeatInterval = heartbeatInterval
            self.nodeTimeout = nodeTimeout
            self.sharded = sharded
            self.filesFolderMark = filesFolderMark
            self.epochCandidate = epochCandidate
        }
    }

    /// Where a command goes: the server of `key`'s slot, or every Redis that holds data (its
    /// replies come back together, ``ClusterNode/answered(_:each:now:)``).
    public enum Route: Equatable, Sendable {
        case key(String)
        case eachDataServer
    }

    public struct Command: Equatable, Sendable {
        public let id: UInt64
        public let command: RedisCommand
        public let route: Route
        /// A write the client is told about: with `--cluster-wait-replicas` it waits for the replicas.
        public let durable: Bool
    }

    public enum Timer: Hashable, Sendable {
        case heartbeat
        case join
    }

    /// What the core hears (the glue turns these into its ``ClusterReport``s).
    public enum Report: Equatable, Sendable {
        case ready
        /// The node is out of the directory (declared lost, or its store lost its data): its
        /// users' leases and memberships are gone; it closes its connections and joins again.
        case membershipLost
        /// Another instance holds this node's name: the node must stop serving.
        case nameTaken(String)
        /// `node`'s users who were in `room`, to take out (`left` with `node-lost`).
        case reap(node: String, room: String, [MemberRecord])
        case serverBans([Ban])
        /// This node's `--files` folder is not the other nodes' (theirs has the given mark).
        case foreignFilesFolder(String)
    }

    public enum Action: Equatable, Sendable {
        case send(Command)
        case schedule(Timer, after: TimeSpan)
        case report(Report)
        case log(LogLevel, String, [String: String])
        /// Whether the heartbeat thread renews the node's place (only while it is in the directory).
        case renewing(Bool)
        /// A planned stop was told to the directory (or could not be).
        case left
    }

    /// The node's figures for its `qchat_cluster_*` families.
    public struct Figures: Equatable, Sendable {
        public var nodesReaped = 0
        /// The last renewal Redis confirmed (the start until the first).
        public var lastRenewal: MonotonicTime
        public var renewFailures = 0
        /// Other nodes in the directory at the last scan.
        public var peerNodes = 0
        public var epochChanges = 0
        public var storeLossesFound = 0
        /// The eviction policy of a Redis this node stores in, when it is not `noeviction`.
        public var unsafeEvictionPolicy: String?
    }

    /// What a command's reply is for.
    enum Purpose {
        case epoch(candidate: String)
        case raiseSeq(recovery: UInt64)
        case eviction(forJoin: Bool)
        case join
        case reapRooms(String)
        case reapRoom(String, room: String)
        case reapHolds(String)
        case reapRelease(String)
        case reapHoldsDropped(String)
        case reapRoomsDropped(String)
        case serverBans(forJoin: Bool)
        case buildParties
        case claimFolder
        case claim
        case members
        case leave
        case unanswered
    }

    /// A reap in progress (of this node's earlier run while joining, or of a lost node).
    struct Reap {
        var forJoin: Bool
        var roomsLeft = 0
        var batchesLeft = 0
        var failed = false
    }

    public var configuration: Configuration
    public internal(set) var figures: Figures
    /// In the directory, its earlier run's leftovers cleared: it takes hellos.
    public internal(set) var isReady = false
    /// The store's epoch as last seen, and whether it was checked since the connection to the
    /// server that holds it was last lost: until it is, nothing is appended.
    public internal(set) var epoch: String?
    public internal(set) var epochChecked = false
    /// Another instance has this node's name: nothing more is done under it.
    public internal(set) var nameLost = false
    /// A planned stop left the directory: no more heartbeats or scans.
    public internal(set) var leaving = false
    var epochCheckInFlight = false
    /// An append found data lost that the epoch check must recover from (``storeLost(room:)``).
    var lossPending = false
    var joining = false
    /// The holder of this node's name when a join found it taken, to see whether it renews.
    var heldName: (deadline: Int64, holder: String)?
    /// Nodes this one is reaping now (itself while joining included).
    var reaps: [String: Reap] = [:]
    /// Seq raises still unanswered, by recovery.
    var raisesLeft: [UInt64: Int] = [:]
    var pending: [UInt64: Purpose] = [:]
    /// The time of the latest input that gave one.
    var now: MonotonicTime
    private var nextID: UInt64 = 0
    private var actions: [Action] = []

    /// How far above its own last delivered seq a node raises a room's counter after a loss.
    public static let epochSeqMargin: Int64 = 1_000

    public init(_ configuration: Configuration, now: MonotonicTime) {
        self.configuration = configuration
        figures = Figures(lastRenewal: now)
        self.now = now
    }

    public var node: String { configuration.node }
    var interval: TimeSpan { configuration.heartbeatInterval }

    /// The epoch an append checks in the same script, on one Redis (on a Redis Cluster the key
    /// is in another slot than the room's: there the room's counter and the heartbeat's check
    /// find a loss).
    public var appendEpoch: (key: String, value: String)? {
        guard !configuration.sharded, let epoch else { return nil }
        return (ClusterKeys.epoch, epoch)
    }

    /// Commands waiting for their replies.
    public var unanswered: Int { pending.count }

    // MARK: Inputs

    /// The first heartbeat is due an interval after the start.
    public mutating func start() -> [Action] {
        schedule(.heartbeat)
        return flush()
    }

    public mutating func fired(_ timer: Timer, now: MonotonicTime) -> [Action] {
        self.now = now
        switch timer {
        case .heartbeat: heartbeat()
        case .join: joinDirectory()
        }
        return flush()
    }

    /// The reply to command `id` (Redis's error replies as failures, ``RoomEventLog/storeResult(_:)``).
    /// `followed`: the rooms this node follows with the last seq it delivered in each, read only
    /// when the reply shows the store lost its data.
    public mutating func answered(_ id: UInt64, _ result: Result<RedisReply, RoomStoreError>, now: MonotonicTime,
                                  followed: () -> [(room: String, delivered: Int64)] = { [] }) -> [Action] {
        self.now = now
        guard let purpose = pending.removeValue(forKey: id) else { return flush() }
        switch purpose {
        case .epoch(let candidate): epochAnswered(result, candidate: candidate, followed: followed)
        case .raiseSeq(let recovery): seqRaised(recovery)
        case .eviction: break
        case .join: joinAnswered(result)
        case .reapRooms(let lost): reapRoomsAnswered(lost, result)
        case .reapRoom(let lost, let room): reapRoomAnswered(lost, room: room, result)
        case .reapHolds(let lost): reapHoldsAnswered(lost, result)
        case .reapRelease(let lost): reapReleaseAnswered(lost, result)
        case .reapHoldsDropped(let lost): reapHoldsDropped(lost)
        case .reapRoomsDropped(let lost): reapFinished(lost, done: true)
        case .serverBans(let forJoin): serverBansAnswered(result, forJoin: forJoin)
        case .buildParties: partiesBuilt(result)
        case .claimFolder: folderClaimed(result)
        case .claim: claimAnswered(result)
        case .members: membersAnswered(result)
        case .leave: leaveAnswered(result)
        case .unanswered: break
        }
        return flush()
    }

    /// The replies of a command sent to every data server, each with its server's name.
    public mutating func answered(_ id: UInt64, each replies: [(server: String, result: Result<RedisReply, RoomStoreError>)],
                                  now: MonotonicTime) -> [Action] {
        self.now = now
        guard case .eviction(let forJoin)? = pending.removeValue(forKey: id) else { return flush() }
        evictionAnswered(replies, forJoin: forJoin)
        return flush()
    }

    public mutating func connected(server: String) -> [Action] {
        log(.info, "redis connected", ["server": server])
        verifyStore(force: true)
        return flush()
    }

    /// The connection to `server` was lost; `holdsEpoch`: it is the one Redis, or the master of
    /// the epoch's slot (another shard's master does not hold appends back).
    public mutating func disconnected(server: String, error: String, holdsEpoch: Bool) -> [Action] {
        log(.warning, "redis unreachable", ["server": server, "error": error])
        if holdsEpoch { epochChecked = false }
        return flush()
    }

    /// A Redis Cluster's slot map changed: a failover may have moved the epoch to a master this
    /// node was connected to already (no `connected` follows): it is checked there.
    public mutating func slotMapUpdated(masters: Int) -> [Action] {
        log(.info, "redis cluster slots", ["masters": String(masters)])
        verifyStore()
        return flush()
    }

    /// Another node changed the server bans: they are read again.
    public mutating func serverBansChanged() -> [Action] {
        loadServerBans(forJoin: false)
        return flush()
    }

    // MARK: Outputs

    mutating func send(_ command: RedisCommand, key: String, durable: Bool = false, for purpose: Purpose) {
        nextID += 1
        pending[nextID] = purpose
        actions.append(.send(Command(id: nextID, command: command, route: .key(key), durable: durable)))
    }

    mutating func sendToEachDataServer(_ command: RedisCommand, for purpose: Purpose) {
        nextID += 1
        pending[nextID] = purpose
        actions.append(.send(Command(id: nextID, command: command, route: .eachDataServer, durable: false)))
    }

    mutating func schedule(_ timer: Timer) { actions.append(.schedule(timer, after: interval)) }
    mutating func report(_ report: Report) { actions.append(.report(report)) }
    mutating func log(_ level: LogLevel, _ event: String, _ fields: [String: String]) { actions.append(.log(level, event, fields)) }
    mutating func emit(_ action: Action) { actions.append(action) }

    mutating func flush() -> [Action] {
        defer { actions.removeAll(keepingCapacity: true) }
        return actions
    }
}
