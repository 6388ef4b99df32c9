import ChatProtocol

/// The chat server without sockets, clock or threads: the glue reports what happened on the
/// QUIC connections, and each call returns the actions to carry out, in order.
///
/// Not thread-safe and not Sendable: the glue calls it from its one event-loop thread. Every
/// rule of PROTOCOL.md sections 2 to 5 that is not about transport lives here; the feature
/// extensions (`+Hello`, `+Rooms`, `+Messages`, ...) each implement one part.
public final class ChatServerState {
    /// Replaced by ``reconfigure(_:now:)``.
    public internal(set) var configuration: ChatServerConfiguration
    let history: any HistoryStore
    /// The accounts read from the store (local or shared) before a request needs them.
    let accounts: SharedAccountCache
    /// File records and partial uploads read from the store before a header needs them (PROTOCOL.md
    /// section 9); the bytes are the glue's.
    let files: SharedFileCatalog
    public internal(set) var statistics = ChatServerStatistics()
    /// Where the core's randomness comes from (peer ids, file ids, upload keys): given at init.
    var random: any RandomNumberGenerator

    /// Every connection the core still serves, said hello or not.
    var clients: [ClientID: ClientSession] = [:]
    /// Peer id → the connection that said hello with it; a newer one replaces it.
    var activeChatStreams: [String: ClientID] = [:]
    /// Peer id → the connection whose presence stream exists.
    var activePresenceStreams: [String: ClientID] = [:]
    /// ``ChatValidation/nickKey(_:)`` → the connection holding that nick.
    var clientsByNickKey: [String: ClientID] = [:]
    /// Rooms with at least one member.
    var rooms: [String: Room] = [:] { didSet { directoryChanges &+= 1 } }
    /// Rooms without members still held in memory, longest idle first (bounded by `idleRoomLimit`).
    var idleRooms = IdleRooms()

    /// Room settings, server bans and operators (``Policies``).
    var policies: Policies { didSet { directoryChanges &+= 1 } }
    /// Counts every change of `rooms` and `policies` (no old value is read: the dictionaries
    /// are still changed in place), so the `rooms` answer knows when it may be out of date.
    var directoryChanges: UInt64 = 0
    /// The `rooms` answer, shared until the rooms change.
    var roomDirectory = RoomDirectory()
    /// Registrations with a certificate and no password waiting for the store's count of their
    /// address (their ticket is the count's), with the nick they register.
    var certificateRegistrations: [UInt64: (client: ClientID, request: ChatMessage, nick: String)] = [:]
    var lastCertificateRegistration: UInt64 = 1 << 62
    /// Password tasks taken on and not finished: being counted, waiting for a worker, or handed
    /// to the glue and not yet answered (also those of clients since gone: their work still
    /// occupies the glue's workers).
    var passwordWork = PasswordTasks()
    /// Uploads whose body the glue is receiving, by stream.
    var activeUploads: [FileStreamKey: ActiveUpload] = [:]

    // A shared room log (`--cluster`, docs/CLUSTER.md).

    /// Appends and reads handed to the glue and not answered yet, by token.
    var pendingAppends: [UInt64: PendingAppend] = [:]
    var pendingReads: [UInt64: PendingRead] = [:]
    var nextSharedToken: UInt64 = 0
    /// Rooms this node follows (asked the glue to deliver), with the last seq delivered in each.
    var deliveredSequence: [String: Int64] = [:]
    /// Acks stored beyond what this node has delivered of their room, in seq order: each goes out
    /// when the delivery reaches it (``acknowledgeInOrder``).
    var heldAcks: [String: HeldAcks] = [:]
    var heldAckCount = 0
    /// Room events the shared store did not take, logged once a second at most.
    var notStoredWarnings = NotStoredWarnings()
    /// File record reads and writes waiting for the shared store, by token.
    var pendingFiles: [UInt64: PendingFiles] = [:]
    /// Upload headers' reads go to the store one at a time, each after the record the one before
    /// wrote (on the same connection): every header is checked against the uploads this node
    /// accepted before it. The reads waiting for their turn, oldest first, and whether one is out.
    var waitingUploadReads: [(token: UInt64, query: FileQuery)] = []
    var uploadReadOut = false
    /// Account reads and writes waiting for the shared store, by token.
    var pendingAccounts: [UInt64: PendingAccounts] = [:]
    /// The digest of a peer id as the shared store keeps it (its leases and member records: the
    /// glue's), to recognise a device a node of several knows only by it. The identity without one.
    public var peerDigest: @Sendable (String) -> String = { $0 }
    /// Connections the core closed while messages of theirs waited for the store: closed once
    /// those are answered.
    var deferredCloses: [ClientID: DeferredClose] = [:]
    /// A room change ``save`` took with a shared store, for the ``announce`` that follows it.
    var policyToAnnounce: PolicyChange?
    /// The room's settings before that change was applied to the cache: put back should its
    /// event not be stored (the read that follows may fail too).
    var settingsBeforeAnnounce: RoomSettings?
    /// Lease claims, lookups and inbox messages waiting for the shared store, by token.
    var pendingIdentities: [UInt64: PendingIdentity] = [:]
    /// Rooms of devices that moved to another node, left once the grace is over (oldest first).
    var replacedLeftovers: [ReplacedLeftover] = []
    /// The node has joined the cluster and cleared what an earlier run of it left: hellos may
    /// take leases. Set by the glue (``clusterReady(_:)``); until then a hello is `unavailable`.
    public internal(set) var sharedStoreReady = false

    /// Throws ``ChatServerConfigurationError`` for a configuration out of range. Every store is
    /// reached through actions (one server's local store, or the cluster's); `accounts` and `files`
    /// hold what was read of them (the server bans come with ``serverBansChanged(_:now:)``).
    /// `random` is the core's only source of randomness (the glue passes the system's generator).
    public init(configuration: ChatServerConfiguration = ChatServerConfiguration(), history: any HistoryStore,
                accounts: SharedAccountCache = SharedAccountCache(), files: SharedFileCatalog = SharedFileCatalog(),
                random: any RandomNumberGenerator) throws {
        try configuration.validate()
        self.random = random
        self.configuration = configuration
        self.history = history
        self.accounts = accounts
        self.files = files
        policies = Policies(operators: configuration.operators, serverBans: [])
    }

    /// How many connections the core serves, said hello or not.
    public var connectedClientCount: Int { clients.count }

    /// The peer id a connection said hello with (upper case); nil before its hello.
    public func peer(of client: ClientID) -> String? {
        guard let session = clients[client], session.phase == .active else { return nil }
        return session.peer
    }

    /// The account a connection is logged in as.
    public func account(of client: ClientID) -> String? {
        clients[client]?.account
    }

    /// The nick of a connection that has said hello.
    public func nick(of client: ClientID) -> String? {
        guard let session = clients[client], session.phase == .active else { return nil }
        return session.nick
    }

    /// The client that holds a nick, compared case-insensitively.
    func activeSession(forNick nick: String) -> ClientSession? {
        guard let id = clientsByNickKey[ChatValidation.nickKey(nick)], let session = clients[id],
            session.phase == .active
        else { return nil }
        return session
    }
}
