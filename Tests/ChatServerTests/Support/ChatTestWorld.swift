import ChatClientKit
import ChatProtocol
import QuicIO
import TestSupport

/// Protocol clients on the engine, all on one event loop, talking to a real server process, or
/// to the nodes of a cluster (``ClusterMode``): then each new connection goes to the next node in
/// turn. Everything here runs on the loop's dedicated thread.
final class ChatTestWorld {
    let loop: EventLoop
    let pool: ChatSessionPool
    /// Where connections go, in turn: the server, or every node of its cluster.
    let servers: [SocketAddress]
    private var connections = 0
    private(set) var inbox: [UInt64: [(message: ChatMessage, channel: ChatSession.Channel)]] = [:]
    /// Messages received per connection and type, so conditions over thousands stay cheap.
    private var counts: [UInt64: [String: Int]] = [:]
    private(set) var closes: [UInt64: QuicCloseReason] = [:]
    private(set) var problems: [String] = []
    private var condition: (() -> Bool)?
    private var joinedRooms: [UInt64: Set<String>] = [:]
    private var lastCheck = MonotonicTime(nanoseconds: 0)
    private var rawClients: [UInt64: RawChatClient] = [:]
    private var routesRawClients = false
    private var extraLocals: [String: SocketAddress] = [:]

    init(port: UInt16) throws {
        loop = try EventLoop()
        let driver = QuicDriver(loop: loop, endpoint: try QuicEndpoint(now: .now()))
        var configuration = QuicConfiguration(tls: QuicTLSConfiguration(trustedCAPath: TestCertificates.ca, serverName: "localhost",
                                                                         alpn: ["qchat/1"]))
        configuration.keepAliveInterval = .seconds(10)
        servers = ChatServerProcess.nodePorts(of: port).map { SocketAddress(host: "127.0.0.1", port: $0)! }
        pool = try ChatSessionPool(driver: driver, server: servers[0], configuration: configuration)
    }

    /// The server the next connection goes to: the nodes of a cluster one after another.
    private func nextServer() -> SocketAddress {
        defer { connections += 1 }
        return servers[connections % servers.count]
    }

    /// Connects a client that joins `room`, to the next node in turn or to node number `node`
    /// (0 is the first); `adjust` may change its QUIC configuration.
    @discardableResult
    func connect(_ nick: String, room: String = "lobby", peer: String = ChatSession.randomPeerID(), since: Int64? = nil,
                 node: Int? = nil, adjust: (inout QuicConfiguration) -> Void = { _ in }) throws -> ChatSession {
        var configuration = pool.configuration
        adjust(&configuration)
        let server = node.map { servers[$0] } ?? nextServer()
        let session = try pool.connect(nick: nick, peer: peer, room: room, since: since, configuration: configuration, to: server)
        let id = session.connection.id
        inbox[id] = []
        session.onMessage = { [unowned self, unowned session] message, channel in
            inbox[id, default: []].append((message, channel))
            counts[id, default: [:]][message.type, default: 0] += 1
            if message.type == "joined", message.sender == session.assignedNick, let room = message.room {
                joinedRooms[id, default: []].insert(room)
            }
            check()
        }
        session.onClose = { [unowned self] reason in
            closes[id] = reason
            check()
        }
        session.onProblem = { [unowned self] problem in problems.append(problem) }
        return session
    }

    /// Connects a client and runs the loop until its replay is complete and its roster arrived,
    /// so that clients connected one after another join in that order (the presence events a
    /// join causes for the others then come before anything the test does next).
    @discardableResult
    func connectAndJoin(_ nick: String, room: String = "lobby", peer: String = ChatSession.randomPeerID(),
                        adjust: (inout QuicConfiguration) -> Void = { _ in }) throws -> ChatSession {
        let session = try connect(nick, room: room, peer: peer, adjust: adjust)
        run { [unowned self] in joined(session, room: room) && has(session, type: "roster") }
        return session
    }

    /// Connects a bare client on the same loop (to the next node in turn, like ``connect``, or to
    /// node number `node`); by default with ALPN `qchat/1`, from the pool's address or from `host`
    /// (another loopback address, such as 127.0.0.2). It sends nothing until told (see
    /// ``RawChatClient/onConnected``).
    func connectRaw(alpn: [String] = ["qchat/1"], from host: String? = nil, node: Int? = nil,
                    adjust: (inout QuicConfiguration) -> Void = { _ in }) throws -> RawChatClient {
        if !routesRawClients {
            routesRawClients = true
            let routeToSessions = pool.driver.onEvent
            pool.driver.onEvent = { [unowned self] connection, event in
                guard let raw = rawClients[connection.id] else { return routeToSessions(connection, event) }
                raw.handle(event)
                if case .closed = event { rawClients[connection.id] = nil }
                check()
            }
        }
        var configuration = pool.configuration
        configuration.tls.alpn = alpn
        adjust(&configuration)
        let local = try host.map { try localAddress($0) } ?? pool.local
        let server = node.map { servers[$0] } ?? nextServer()
        let connection = try pool.driver.endpoint.connect(to: server, from: local, configuration: configuration, now: .now())
        let client = RawChatClient(connection: connection)
        rawClients[connection.id] = client
        return client
    }

    /// A UDP socket of the pool's driver bound to `host`, made on first use.
    private func localAddress(_ host: String) throws -> SocketAddress {
        if let bound = extraLocals[host] { return bound }
        let bound = try pool.driver.bind(SocketAddress(host: host, port: 0)!)
        extraLocals[host] = bound
        return bound
    }

    /// How long ``run(seconds:until:)`` waits when not told: 10 s, or more in scenarios whose
    /// every step waits for password work (argon2id on the server's lowest-priority workers,
    /// which a loaded machine slows to seconds a hash: docs/RELIABILITY.md, "Worker priority").
    /// A wait ends as soon as its event comes, so a patient one costs a passing test nothing.
    var patience: Double = 10

    /// Runs the loop until `done` holds (checked after every message and close) or `seconds`
    /// (``patience`` when nil; scaled by `TestTime`) pass.
    @discardableResult
    func run(seconds: Double? = nil, scaled: Bool = true, until done: @escaping () -> Bool) -> Bool {
        let seconds = seconds ?? patience
        if done() { return true }
        condition = done
        let wait = scaled ? TestTime.scaled(seconds) : seconds
        let timer = loop.schedule(at: .now() + .milliseconds(UInt64(wait * 1000))) { [unowned self] in loop.stop() }
        schedulePeriodicCheck()
        loop.run()
        loop.cancel(timer)
        condition = nil
        return done()
    }

    /// Lets the loop run for a while (to show that something does NOT happen).
    func settle(seconds: Double) {
        _ = run(seconds: seconds) { false }
    }

    /// Lets the loop run for exactly `seconds` of wall time, unscaled: for a span that must stay
    /// within a server's own deadline (which no sanitized build stretches).
    func settle(wallSeconds seconds: Double) {
        _ = run(seconds: seconds, scaled: false) { false }
    }

    /// Conditions can be costly over hundreds of clients: evaluate them at most every 5 ms, and
    /// on a timer so the last message before a quiet spell is not missed.
    private func check() {
        let now = MonotonicTime.now()
        guard now - lastCheck >= .milliseconds(5) else { return }
        lastCheck = now
        if let condition, condition() { loop.stop() }
    }

    private func schedulePeriodicCheck() {
        loop.schedule(at: .now() + .milliseconds(10)) { [weak self] in
            guard let self, let condition else { return }
            if condition() { loop.stop() } else { schedulePeriodicCheck() }
        }
    }

    func messages(_ session: ChatSession, type: String? = nil, channel: ChatSession.Channel? = nil) -> [ChatMessage] {
        (inbox[session.connection.id] ?? [])
            .filter { type == nil || $0.message.type == type }
            .filter { channel == nil || $0.channel == channel }
            .map(\.message)
    }

    func count(_ session: ChatSession, type: String) -> Int { counts[session.connection.id]?[type] ?? 0 }

    func closeCode(_ session: ChatSession) -> UInt64? { closes[session.connection.id]?.applicationCode }

    func has(_ session: ChatSession, type: String, where predicate: (ChatMessage) -> Bool = { _ in true }) -> Bool {
        messages(session, type: type).contains(where: predicate)
    }

    /// True once the session has seen its own `joined` in `room` (its replay is complete).
    func joined(_ session: ChatSession, room: String = "lobby") -> Bool {
        joinedRooms[session.connection.id]?.contains(room) == true
    }
}

/// Runs a scenario against a fresh server on a dedicated thread and returns what it reports.
/// `patience`: the world's ``ChatTestWorld/patience``.
func scenario<Result: Sendable>(server arguments: [String] = [], patience: Double = 10,
                                _ body: @escaping @Sendable (ChatTestWorld, ChatServerProcess) throws -> Result) async throws -> Result {
    let server = try ChatServerProcess(arguments)
    defer { server.stop() }
    return try await onDedicatedThread {
        let world = try ChatTestWorld(port: server.port)
        world.patience = patience
        return try body(world, server)
    }
}
