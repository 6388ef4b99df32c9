import ChatProtocol
import QuicIO

/// A chat session that survives losing its connection without losing anything the person did
/// (PROTOCOL.md sections 3, 6 and 10). The rules are ``SessionCore``'s, which does no I/O; this
/// class carries its actions out: real connections through a ``ChatSessionPool``, one loop timer
/// at the core's deadline, the clock, the callbacks of the client modes, the file transfers.
public final class ResilientSession {
    public typealias State = SessionState
    public typealias Ending = SessionEnding

    public let pool: ChatSessionPool
    public private(set) var core: SessionCore
    public private(set) var current: ChatSession?

    public var onMessage: (ChatMessage, ChatSession.Channel) -> Void = { _, _ in }
    /// Uploads and downloads, resumed on every new connection (PROTOCOL.md section 9).
    public let files: FileTransfers
    public var onState: (State) -> Void = { _ in }
    public var onProblem: (String) -> Void = { _ in }
    /// A room's member list changed (read it from ``members``).
    public var onMembersChanged: (String) -> Void = { _ in }
    /// Asked when, after the first `welcome`, the session moves to a server whose certificate no
    /// CA signs and no pin names (`--trust-on-first-use` says yes and remembers it): true pins it
    /// and connects to it; false leaves that server out for the rest of the run. Before the first
    /// `welcome` the session stops in ``SessionState/unknownServer(fingerprint:)`` instead, to ask.
    public var trustsUnknownServer: (ServerAddress, String) -> Bool = { _, _ in false }

    private let loop: EventLoop
    private var timer: (id: LoopTimerID, at: MonotonicTime)?
    /// ``start(nick:peer:)`` is running: a first connection that cannot be made is its error.
    private var starting = false
    private var startError: (any Error)?

    /// `rooms`: the rooms to be in, the first joined by the hello. `servers`: the servers to use,
    /// in order; none: the pool's own server with the pool's TLS settings. Nothing happens before
    /// ``start(nick:peer:)``.
    public init(pool: ChatSessionPool, loop: EventLoop, nick: String, rooms wanted: [String], servers: [ServerAddress] = []) {
        self.pool = pool
        self.loop = loop
        let servers = servers.isEmpty
            ? [ServerAddress(host: pool.configuration.tls.serverName ?? pool.server.host, port: pool.server.port, address: pool.server,
                             policy: pool.configuration.tls.serverCertificatePolicy)]
            : servers
        core = SessionCore(nick: nick, peer: ChatSession.randomPeerID(), rooms: wanted, servers: servers, now: .now())
        files = FileTransfers(loop: loop)
    }

    // MARK: What the core knows

    public var state: State { core.state }
    /// The peer id every connection of the session says hello with: random, or one the client
    /// kept from an earlier run (``SessionSlot``), given to ``start(nick:peer:)``.
    public var peer: String { core.peer }
    public var nick: String { core.nick }
    /// The nick the last hello asked for (``SessionCore/helloNick``).
    public var helloNick: String { core.helloNick }
    public var serverName: String? { core.serverName }
    public var features: Set<String> { core.features }
    public var everConnected: Bool { core.everConnected }
    public var rooms: [(name: String, lastSeq: Int64?)] { core.rooms }
    public var outbox: Outbox { core.outbox }
    public var members: RoomMembers { core.members }
    public var status: String { core.status }
    public var account: String? { core.account }
    public var helloPassword: String? {
        get { core.helloPassword }
        set { core.helloPassword = newValue }
    }
    /// See ``SessionCore/firstConnectionPatience``.
    public var firstConnectionPatience: TimeSpan? {
        get { core.firstConnectionPatience }
        set { core.firstConnectionPatience = newValue }
    }
    public var rotation: ServerRotation { core.rotation }
    public var servers: [ServerAddress] { core.rotation.servers }
    /// Index in ``servers`` of the current connection's server, or of the next one tried.
    public var serverIndex: Int { core.rotation.index }
    public var currentServer: ServerAddress { core.rotation.current }
    public var isConnected: Bool { core.isConnected }
    /// `msg` and `dm` not yet acknowledged by the server, oldest first.
    public var pendingMessages: [ChatMessage] { core.outbox.pendingMessages }
    /// Connected, the hello's room answered, nothing waiting to be sent, nothing unanswered.
    public var isSettled: Bool { isConnected && core.outbox.isEmpty && core.helloRoomUnanswered == nil }
    /// The current connection (for its statistics).
    public var connection: QuicConnection? { current?.connection }

    // MARK: The person

    /// Connects (the first connection; later ones are made by the session itself), as `nick`
    /// and `peer` when given.
    public func start(nick wanted: String? = nil, peer kept: String? = nil) throws {
        starting = true
        defer { starting = false }
        perform(core.start(nick: wanted, peer: kept, now: .now()))
        if let startError {
            self.startError = nil
            throw startError
        }
    }

    /// Asks for a request on the chat stream (`msg`, `dm`, `join`, `part`, `nick`, `history`, ...):
    /// queued in order and sent as soon as the connection and the flood limit allow, again after
    /// a reconnect if it was not answered. False (nothing queued) when ``Outbox/capacity``
    /// requests wait already.
    @discardableResult
    public func send(_ message: ChatMessage) -> Bool {
        let (accepted, actions) = core.send(message, now: .now())
        perform(actions)
        return accepted
    }

    /// Sets the person's status (`online`, `away`): sent now if connected, and restored on every
    /// new connection.
    public func setStatus(_ word: String, reason: String? = nil) { perform(core.setStatus(word, reason: reason, now: .now())) }

    /// The person saw `place` up to message `seq` (``SessionCore/markRead(_:upTo:now:)``).
    public func markRead(_ place: MessageTarget, upTo seq: Int64) { perform(core.markRead(place, upTo: seq, now: .now())) }
    public var readMarkers: ReadMarkers { core.readMarkers }

    /// A typing indicator for a room: a datagram, or on the presence stream when the server takes
    /// no datagrams. Typing is not counted by the flood limit and not queued: stale typing is
    /// worthless.
    public func sendTyping(room: String, typing: Bool) {
        guard isConnected, let current else { return }
        if !current.sendTyping(room: room, typing: typing) {
            current.sendPresence(.typing(room: room, isTyping: typing))
        }
    }

    /// In ``SessionState/unknownServer(fingerprint:)``: the person (or `--trust-on-first-use`)
    /// trusts that certificate. Every connection from now on pins it.
    public func trust(fingerprint: String) { perform(core.trust(fingerprint: fingerprint, now: .now())) }

    /// In ``SessionState/refused(code:text:)``: says hello again with another nick.
    public func retry(nick wanted: String, password: String? = nil) {
        perform(core.retry(nick: wanted, password: password, now: .now()))
    }

    public func quit() { perform(core.quit()) }

    /// `/quit MESSAGE`: the server is asked to close with it; ``onState`` says `stopped` once the
    /// session ended (the server closed, refused, or did not answer in time).
    public func quit(message: String) { perform(core.quit(message: message, id: ChatSession.randomPeerID(), now: .now())) }

    // MARK: Carrying the actions out

    private func perform(_ actions: [SessionCore.Action]) {
        for action in actions {
            switch action {
            case .connect(let server, let hello): connect(to: server, hello)
            case .write(let message, .chat): current?.send(message)
            case .write(let message, .presence): current?.sendPresence(message)
            case .close: current?.quit()
            case .deliver(let message, let channel): onMessage(message, channel)
            case .state(let state): onState(state)
            case .problem(let text): onProblem(text)
            case .membersChanged(let room): onMembersChanged(room)
            case .filesConnected: if let connection = current?.connection { files.connected(connection) }
            case .filesLost: files.connectionLost()
            case .decideTrust(let server, let fingerprint):
                perform(core.trustDecided(trustsUnknownServer(server, fingerprint), now: .now()))
            }
        }
        rearm()
    }

    /// One loop timer, at the core's deadline.
    private func rearm() {
        let deadline = core.deadline
        guard timer?.at != deadline else { return }
        if let timer { loop.cancel(timer.id) }
        timer = nil
        guard let deadline else { return }
        let id = loop.schedule(at: deadline) { [weak self] in
            guard let self else { return }
            timer = nil
            perform(core.tick(now: .now()))
        }
        timer = (id, deadline)
    }

    private func connect(to server: ServerAddress, _ hello: SessionCore.Hello) {
        let session: ChatSession
        do {
            session = try pool.connect(nick: hello.nick, peer: hello.peer, room: hello.room, since: hello.since, to: server)
        } catch {
            if starting {
                startError = error
                return
            }
            // Handed back on the loop's next turn, as a close would be, not from inside this call.
            let reason = QuicCloseReason(kind: .dropped, reason: "\(error)", byPeer: false)
            loop.schedule(at: .now()) { [weak self] in
                guard let self else { return }
                perform(core.closed(reason, verdict: nil, now: .now()))
            }
            return
        }
        session.initialStatus = hello.status
        session.initialAway = hello.away
        session.helloPassword = hello.password
        current = session
        session.onMessage = { [unowned self, unowned session] message, channel in
            guard session === current else { return }
            perform(core.received(message, on: channel, now: .now()))
        }
        session.onProblem = { [unowned self] problem in onProblem(problem) }
        session.onFileStreamEvent = { [unowned self, unowned session] event in
            guard session === current else { return }
            files.handle(event)
        }
        session.onClose = { [unowned self, unowned session] reason in
            guard session === current else { return }
            perform(core.closed(reason, verdict: session.connection.serverCertificateVerdict, now: .now()))
        }
    }
}
