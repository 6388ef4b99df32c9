import ChatProtocol

/// Everything the core knows about one connection.
final class ClientSession {
    let id: ClientID
    /// Came in with ALPN `chat` (the original SimpleQuicClient). Only logged: the protocol is a
    /// superset of what such a client speaks, so the core treats it like any other.
    let isLegacy: Bool
    /// The peer accepts DATAGRAM frames; otherwise typing goes on its presence stream.
    let acceptsDatagrams: Bool
    /// The client's address as limits count it (IPv4 address, or IPv6 /64): guest bans and the
    /// per-address password attempt limit use it. Empty for an address many clients share
    /// (exempt from the per-address limits), which neither holds.
    let address: String
    /// The SHA-256 fingerprint of the client certificate it presented, if any (its identity).
    let certificate: String?
    var phase = ClientPhase.awaitingHello
    /// Valid once active.
    var nick = ""
    /// The upper-case peer UUID; valid once active.
    var peer = ""
    /// With a shared store: the digest of `peer` as the store names the device, once computed
    /// (``ChatServerState/device(of:)``).
    var cachedDevice: String?
    var rooms = JoinedRooms()
    /// `online`, `away` or `offline`, as the client last said on its presence stream.
    var status = PresenceStatus.online
    /// A status sent on the presence stream before the hello, applied at the hello (stream 4
    /// data may arrive before stream 0 data).
    var statusBeforeHello: PresenceStatus?
    /// The client has sent on stream 0, so the server can write to it.
    var hasChatStream = false
    /// The client has sent on stream 4, so presence events go out instead of into the queue.
    var hasPresenceStream = false
    var pendingPresence: PresenceBacklog
    var floodBucket: TokenBucket
    /// Relayed typing indicators, whatever they came on.
    var typingBucket: TokenBucket
    /// Typing messages on the presence stream that are free of the flood limit.
    var presenceTypingBucket: TokenBucket
    var rateLimitStrikes: StrikeWindow
    /// The account this connection is logged in as (its name as registered); nil for a guest.
    var account: String?
    /// ``ChatValidation/nickKey(_:)`` of `account`, compared on every moderation check.
    var accountKey: String?
    /// When `account` was registered: a guest ban by address holds for accounts registered since.
    var accountCreated: Int64?
    /// The password task this connection waits for; while it runs, chat-stream messages wait in
    /// `heldMessages` and are handled in order after the verdict.
    var awaitedPasswordTask: UInt64?
    var heldMessages: [ChatMessage] = []
    /// With a shared log: the connection waits for a step of the log (its `join`'s catch-up, its
    /// `part`'s `left`); its chat-stream messages wait in `heldMessages` meanwhile, as for a password.
    var awaitsRoomLog = false
    /// The connection waits for the store's receipt of a message id (a `dm`, or a `msg` that
    /// would be refused: ``ChatServerState/beginDirectReceiptLookup(_:id:session:into:)``); its
    /// chat-stream messages wait in `heldMessages` meanwhile, so that its requests are still
    /// answered in the order they came.
    var awaitsReceipt = false
    /// A login's renames (a shared log) not yet stored and delivered: its `account logged-in`
    /// goes out after the last of them (PROTOCOL.md sections 7-8, item 9).
    var loginRenamesLeft = 0
    /// The room this connection is catching up with (a shared log only).
    var catchUp: CatchUp?
    /// The room of a `part` waiting for its `left` to come back from the shared log, with the request's id.
    var pendingPart: (room: String, id: String?)?

    /// Messages must wait: a password check or a step of the shared log is in progress.
    var isAwaiting: Bool { awaitedPasswordTask != nil || awaitsRoomLog || awaitsReceipt }

    init(id: ClientID, isLegacy: Bool, acceptsDatagrams: Bool, address: String, certificate: String?,
         configuration: ChatServerConfiguration, now: Int64) {
        self.id = id
        self.address = address
        self.certificate = certificate
        self.isLegacy = isLegacy
        self.acceptsDatagrams = acceptsDatagrams
        pendingPresence = PresenceBacklog(countLimit: configuration.presenceQueueLimit, byteLimit: configuration.presenceQueueByteLimit)
        floodBucket = TokenBucket(capacity: configuration.floodBurst, refillPerSecond: configuration.floodPerSecond, now: now)
        typingBucket = TokenBucket(capacity: configuration.typingBurst, refillPerSecond: configuration.typingPerSecond, now: now)
        presenceTypingBucket = TokenBucket(
            capacity: max(1, Int(configuration.presenceTypingPerSecond.rounded(.up))),
            refillPerSecond: configuration.presenceTypingPerSecond, now: now)
        rateLimitStrikes = StrikeWindow(
            limit: configuration.floodStrikes, windowMilliseconds: configuration.floodStrikeWindowMilliseconds)
    }

    func isMember(of room: String) -> Bool {
        rooms.contains(room)
    }

    /// Logs this connection in (or, with nil, out: never done by a request, but by a takeover)
    /// to the account registered at `created` (nil: as set already, by the hello that checked it).
    func logIn(_ name: String?, created: Int64? = nil) {
        accountCreated = name == nil ? nil : created ?? accountCreated
        account = name
        accountKey = name.map(ChatValidation.nickKey)
    }
}
