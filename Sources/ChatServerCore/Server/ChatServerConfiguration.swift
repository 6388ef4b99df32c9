import ChatProtocol

/// The tunable limits of the server. The defaults are those of PROTOCOL.md; `chat-server`
/// flags override them (a load test raises the flood and typing limits).
public struct ChatServerConfiguration: Sendable, Equatable {
    /// Sent as `text` of `welcome`.
    public var serverName: String
    /// This node's name when it is one of several (`--node`): `welcome` says `serverName/nodeName`.
    public var nodeName: String?
    /// Room events a node of several has sent to the shared store and not heard back about, with
    /// the acks of those stored that wait for their place in the room's order, at most; beyond it
    /// a message is answered `unavailable` (the client sends it again later).
    public var pendingAppendLimit = 100_000
    /// Room events the history store keeps at least, per room (`--history`).
    public var historyPerRoom: Int
    /// Messages a client may send in a burst before the flood limit applies.
    public var floodBurst: Int
    /// Messages a second a client may send sustained.
    public var floodPerSecond: Double
    /// This many `rate-limited` errors within `floodStrikeWindowMilliseconds` close the client with FLOODING.
    public var floodStrikes: Int
    /// The window in which `floodStrikes` rate-limited errors close a client.
    public var floodStrikeWindowMilliseconds: Int64
    /// Typing indicators a second the server relays from one client, sustained.
    public var typingPerSecond: Double
    /// Typing indicators the server relays from one client in a burst.
    public var typingBurst: Int
    /// Presence events held for a client whose presence stream does not exist yet; the oldest go first.
    public var presenceQueueLimit: Int
    /// Bytes of presence events held for such a client, at most; the oldest go first.
    public var presenceQueueByteLimit: Int
    /// Typing messages a second (and in a burst) a client may send on its presence stream before
    /// each further one counts toward the flood limit like any other message (PROTOCOL.md section 12).
    public var presenceTypingPerSecond: Double
    /// Rooms one connection may be in at once (`--max-rooms-per-client`).
    public var maxRoomsPerClient: Int
    /// Rooms without members whose history and seq the server keeps in memory (`--idle-rooms`);
    /// beyond that the longest idle is forgotten (its history stays on disk with `--db`).
    public var idleRoomLimit: Int
    /// Events replayed on `join` without `since`.
    public var defaultReplay: Int
    /// Events replayed on `join` with `since`, at most.
    public var maxReplay: Int
    /// Events a `history` without `limit` returns.
    public var historyDefaultLimit: Int
    /// Events a `history` returns at most; a larger `limit` is clamped to this.
    public var historyMaxLimit: Int

    // Accounts and moderation (PROTOCOL.md sections 7 and 8).

    /// Account names of the server operators (`--operator`), compared case-insensitively. Each
    /// name is reserved from the start: no guest may hold it and nobody may `register` it over the
    /// wire; the operator console creates it (docs/PROTOCOL.md sections 7-8, item 16).
    public var operators: Set<String>
    /// ``ChatValidation/nickKey(_:)`` of an operator name → the SHA-256 fingerprint (64 lowercase
    /// hex digits) of a client certificate bound to it by configuration (`--operator
    /// NAME=sha256:FINGERPRINT`): a connection presenting it may take the nick and `register` the
    /// account, and logs in to it as if the certificate were bound in the store.
    public var operatorCertificates: [String: String] = [:]
    /// Only logged-in connections get a hello (`--accounts-only`).
    public var accountsOnly: Bool
    /// Whether any logged-in user may `claim` `lobby`, the room every client joins by default
    /// (`--lobby-claimable`); off, only a server operator may (issue 23, finding 6: an owner could
    /// make it `+invite` and shut every new client out).
    public var lobbyClaimable = false
    /// Password hashes and checks handed to the glue's workers and not yet answered, at most
    /// (`--password-queue`); beyond it a `register`, `login`, `password` or hello with a password
    /// gets `rate-limited` and nothing is queued.
    public var passwordQueueLimit: Int
    /// Password tasks handed to the glue at once: its hashing threads (`--password-workers`, at
    /// least 1); the others wait in the core's queue, in the order docs/PROTOCOL.md gives.
    public var passwordTasksRunning: Int
    /// Chat-stream messages one connection may send while its password is checked: they wait and
    /// are handled, in order, after the verdict; beyond this many, `rate-limited`.
    public var heldMessageLimit: Int
    /// Wrong passwords per account and per client address within `loginFailureWindowMilliseconds`
    /// after which every password attempt is `bad-login` until the window has passed.
    public var loginFailureLimit: Int
    public var loginFailureWindowMilliseconds: Int64
    /// Accounts and addresses whose recent wrong passwords are remembered, at most each.
    public var loginFailureKeys: Int
    /// Accounts registered from one address (not an exempt one) within
    /// `registrationWindowMilliseconds` (`--registrations-per-address`); one more is `quota-exceeded`.
    public var registrationsPerAddress: Int
    public var registrationWindowMilliseconds: Int64
    /// Bans, invites and operators one room keeps at most; server bans at most; certificates bound
    /// to one account at most. Beyond them: `quota-exceeded`.
    public var maxBansPerRoom: Int
    public var maxInvitesPerRoom: Int
    public var maxOperatorsPerRoom: Int
    public var maxServerBans: Int
    public var maxCertificatesPerAccount: Int
    /// Files (PROTOCOL.md section 9): the largest file (`--max-file-size`; larger is `too-large`),
    /// the bytes one account (or guest peer) may have stored and in progress (`quota-exceeded`),
    /// the distinct content kept before the oldest files go (`--files-max-bytes`), and how long an
    /// interrupted upload's bytes wait for a resume.
    public var maxFileSize: Int64
    public var fileQuotaBytes: Int64
    public var filesMaxBytes: Int64
    public var partialUploadMilliseconds: Int64
    /// The bytes everyone uploading from one address (not an exempt one) may have stored and in
    /// progress together (`--file-quota-per-address`; `quota-exceeded`).
    public var fileQuotaPerAddressBytes: Int64
    /// Free disk (where the files and the database are) that uploads leave for chat, history and
    /// accounts (`--disk-reserve`): an upload stops with `quota-exceeded` rather than take it.
    public var diskReserveBytes: Int64
    /// Uploads in progress and interrupted ones waiting for a resume, at most, of one account or
    /// guest and of one address (`--max-partial-uploads`), and of the whole server
    /// (`--max-partial-uploads-total`): a record costs the same whatever its bytes.
    public var maxPartialUploads: Int
    public var maxPartialUploadsTotal: Int
    /// Uploads being received at once, each holding a file open (`--max-uploads`); one more is
    /// `unavailable` (per connection four file streams, per address `maxPartialUploads`, bound them too).
    public var maxUploads: Int
    /// A file stream that makes no progress this long (no body byte in, none written out, no
    /// header) is given up by the glue: an upload is interrupted, its bytes kept for a resume
    /// (`--file-stall-timeout`).
    public var fileStallMilliseconds: Int64
    /// Bytes a second a file stream must move on average over each `fileStallMilliseconds`
    /// (time it waits for the server not counted), or it is given up as a stalled one is
    /// (`--file-min-rate`; 0: no minimum): a client trickling a few bytes holds no upload place.
    public var fileMinimumRate: Int64

    public init(
        serverName: String = "qchat",
        historyPerRoom: Int = 1_000,
        floodBurst: Int = 20,
        floodPerSecond: Double = 5.0,
        floodStrikes: Int = 10,
        floodStrikeWindowMilliseconds: Int64 = 10_000,
        typingPerSecond: Double = 2.0,
        typingBurst: Int = 2,
        presenceQueueLimit: Int = 1_000,
        presenceQueueByteLimit: Int = 256 << 10,
        presenceTypingPerSecond: Double = 10,
        maxRoomsPerClient: Int = 100,
        idleRoomLimit: Int = 1_000,
        defaultReplay: Int = 20,
        maxReplay: Int = 1_000,
        historyDefaultLimit: Int = 50,
        historyMaxLimit: Int = 200,
        operators: Set<String> = [],
        accountsOnly: Bool = false,
        passwordQueueLimit: Int = 64,
        passwordTasksRunning: Int = 1,
        heldMessageLimit: Int = 100,
        loginFailureLimit: Int = 5,
        loginFailureWindowMilliseconds: Int64 = 60_000,
        loginFailureKeys: Int = 100_000,
        registrationsPerAddress: Int = 10,
        registrationWindowMilliseconds: Int64 = 3_600_000,
        maxBansPerRoom: Int = 1_000,
        maxInvitesPerRoom: Int = 1_000,
        maxOperatorsPerRoom: Int = 100,
        maxServerBans: Int = 10_000,
        maxCertificatesPerAccount: Int = 16,
        maxFileSize: Int64 = ChatLimits.defaultMaxFileSize,
        fileQuotaBytes: Int64 = 1 << 30,
        filesMaxBytes: Int64 = 10 << 30,
        partialUploadMilliseconds: Int64 = 3_600_000,
        fileQuotaPerAddressBytes: Int64 = 1 << 30,
        diskReserveBytes: Int64 = 64 << 20,
        maxPartialUploads: Int = 32,
        maxPartialUploadsTotal: Int = 10_000,
        maxUploads: Int = 256,
        fileStallMilliseconds: Int64 = 60_000,
        fileMinimumRate: Int64 = 1024
    ) {
        self.serverName = serverName
        self.historyPerRoom = historyPerRoom
        self.floodBurst = floodBurst
        self.floodPerSecond = floodPerSecond
        self.floodStrikes = floodStrikes
        self.floodStrikeWindowMilliseconds = floodStrikeWindowMilliseconds
        self.typingPerSecond = typingPerSecond
        self.typingBurst = typingBurst
        self.presenceQueueLimit = presenceQueueLimit
        self.presenceQueueByteLimit = presenceQueueByteLimit
        self.presenceTypingPerSecond = presenceTypingPerSecond
        self.maxRoomsPerClient = maxRoomsPerClient
        self.idleRoomLimit = idleRoomLimit
        self.defaultReplay = defaultReplay
        self.maxReplay = maxReplay
        self.historyDefaultLimit = historyDefaultLimit
        self.historyMaxLimit = historyMaxLimit
        self.operators = operators
        self.accountsOnly = accountsOnly
        self.passwordQueueLimit = passwordQueueLimit
        self.passwordTasksRunning = passwordTasksRunning
        self.heldMessageLimit = heldMessageLimit
        self.loginFailureLimit = loginFailureLimit
        self.loginFailureWindowMilliseconds = loginFailureWindowMilliseconds
        self.loginFailureKeys = loginFailureKeys
        self.registrationsPerAddress = registrationsPerAddress
        self.registrationWindowMilliseconds = registrationWindowMilliseconds
        self.maxBansPerRoom = maxBansPerRoom
        self.maxInvitesPerRoom = maxInvitesPerRoom
        self.maxOperatorsPerRoom = maxOperatorsPerRoom
        self.maxServerBans = maxServerBans
        self.maxCertificatesPerAccount = maxCertificatesPerAccount
        self.maxFileSize = maxFileSize
        self.fileQuotaBytes = fileQuotaBytes
        self.filesMaxBytes = filesMaxBytes
        self.partialUploadMilliseconds = partialUploadMilliseconds
        self.fileQuotaPerAddressBytes = fileQuotaPerAddressBytes
        self.diskReserveBytes = diskReserveBytes
        self.maxPartialUploads = maxPartialUploads
        self.maxPartialUploadsTotal = maxPartialUploadsTotal
        self.maxUploads = maxUploads
        self.fileStallMilliseconds = fileStallMilliseconds
        self.fileMinimumRate = fileMinimumRate
    }

    /// Throws when a value would make the server misbehave rather than merely be strict.
    public func validate() throws(ChatServerConfigurationError) {
        // At least one stored event per room keeps the room's highest seq on disk, which is
        // what lets seq continue after a restart.
        try require(historyPerRoom >= 1, "history per room must be at least 1")
        try require(floodBurst >= 1, "flood burst must be at least 1")
        try require(floodPerSecond > 0 && floodPerSecond.isFinite, "flood rate must be a positive number")
        try require(floodStrikes >= 1, "flood strikes must be at least 1")
        try require(floodStrikeWindowMilliseconds >= 1, "flood strike window must be at least 1 ms")
        try require(typingPerSecond > 0 && typingPerSecond.isFinite, "typing rate must be a positive number")
        try require(typingBurst >= 1, "typing burst must be at least 1")
        try require(presenceQueueLimit >= 1, "presence queue limit must be at least 1")
        try require(presenceQueueByteLimit >= 1, "presence queue byte limit must be at least 1")
        try require(presenceTypingPerSecond > 0 && presenceTypingPerSecond.isFinite, "presence typing rate must be a positive number")
        try require(maxRoomsPerClient >= 1, "rooms per client must be at least 1")
        try require(idleRoomLimit >= 0, "idle rooms must not be negative")
        try require(defaultReplay >= 0, "default replay must not be negative")
        try require(maxReplay >= defaultReplay, "max replay must be at least the default replay")
        try require(historyDefaultLimit >= 1, "history default limit must be at least 1")
        try require(historyMaxLimit >= historyDefaultLimit, "history max limit must be at least the default limit")
        try require(operators.allSatisfy(ChatValidation.isValidAccountName), "operator names follow the nick rules")
        let operatorKeys = Set(operators.map(ChatValidation.nickKey))
        try require(operatorCertificates.allSatisfy { operatorKeys.contains($0.key) && Self.isFingerprint($0.value) },
                    "an operator's certificate is sha256: and 64 lowercase hex digits, of an operator name")
        try require(passwordQueueLimit >= 1, "password queue must hold at least 1")
        try require(passwordTasksRunning >= 1, "password tasks running at once must be at least 1")
        try require(heldMessageLimit >= 1, "held messages must be at least 1")
        try require(loginFailureLimit >= 1, "login failure limit must be at least 1")
        try require(loginFailureWindowMilliseconds >= 1, "login failure window must be at least 1 ms")
        try require(loginFailureKeys >= 1, "login failure keys must be at least 1")
        try require(registrationsPerAddress >= 1 && registrationWindowMilliseconds >= 1, "the registration limit must be at least 1")
        try require(maxBansPerRoom >= 1 && maxInvitesPerRoom >= 1 && maxOperatorsPerRoom >= 1 && maxServerBans >= 1
                        && maxCertificatesPerAccount >= 1, "list limits must be at least 1")
        try require(maxFileSize >= 0 && fileQuotaBytes >= 0 && filesMaxBytes >= 0 && fileQuotaPerAddressBytes >= 0 && diskReserveBytes >= 0,
                    "file limits must not be negative")
        try require(maxPartialUploads >= 1 && maxPartialUploadsTotal >= 1 && maxUploads >= 1, "upload limits must be at least 1")
        try require(fileStallMilliseconds >= 1_000, "the file stall timeout must be at least a second")
        try require(fileMinimumRate >= 0, "the minimum file rate cannot be negative")
        // PROTOCOL.md section 9: the bytes of an interrupted upload are kept for at least an hour.
        try require(partialUploadMilliseconds >= 3_600_000, "interrupted uploads must be kept at least an hour")
    }

    /// A SHA-256 fingerprint as the engine gives it: 64 lowercase hex digits.
    public static func isFingerprint(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    private func require(_ condition: Bool, _ message: String) throws(ChatServerConfigurationError) {
        if !condition { throw ChatServerConfigurationError(message: message) }
    }
}
