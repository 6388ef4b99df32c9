import ChatProtocol
import QuicEngine

/// A chat session that survives losing its connection without losing anything the person did:
/// it reconnects with backoff and jitter under the same peer id, re-joins every room with `since`
/// set to the last seq it saw there, restores the person's status, and sends everything asked for
/// and not yet answered (messages with the same ids, so nothing is delivered twice; joins, parts,
/// nick changes typed during the outage) in the order it was asked for (PROTOCOL.md section 3).
///
/// Everything counted by the server's flood limit goes through one ``Outbox``, paced under the
/// limit: what the server refuses with `rate-limited` is sent again, never lost. It also keeps
/// each room's member list as the server's roster says (``RoomMembers``).
///
/// With several servers (``servers``, the nodes of one chat system) a lost connection moves to
/// the next one and resumes there the same way (PROTOCOL.md section 10).
///
/// A failure before the first `welcome` is not retried (each server is tried once, in order):
/// the person gets one clear ending (unreachable, untrusted certificate) or, when the server
/// refuses the hello's nick or room, the ``State/refused(code:text:)`` state to pick another
/// (``retry(nick:)``).
public final class ResilientSession {
    public enum State: Equatable, Sendable {
        /// The first connection, before its `welcome`.
        case connecting
        case connected
        /// The connection was lost (attempt 1) or a reconnect failed (attempt 2, 3, ...).
        case reconnecting(attempt: Int, reason: String)
        /// The server refused the hello (`bad-nick`, `bad-room`, ...); the connection waits for
        /// ``retry(nick:)`` or ``quit()``.
        case refused(code: String, text: String)
        /// The first connection's handshake ended on a certificate that no CA signs and no pin
        /// names (``ServerCertificatePolicy/firstUse``): nothing was sent to the server. Waits for
        /// ``trust(fingerprint:)``, which pins it and connects again, or ``quit()``.
        case unknownServer(fingerprint: String)
        case stopped(Ending)
    }

    /// Why the session ended.
    public struct Ending: Equatable, Sendable {
        public enum Kind: Equatable, Sendable {
            /// The person quit.
            case quit
            /// The server was never reached.
            case unreachable
            /// The server's certificate is not trusted, or the TLS handshake was refused: not
            /// transient, never retried.
            case untrusted
            /// The server presented another certificate than the one pinned for it: refused, never
            /// retried, no way around it but editing the pin.
            case certificateChanged(pinned: String, presented: String)
            /// The server ended the session for good (kicked, replaced by a newer connection) or
            /// refused the hello and closed.
            case closed
        }

        public let kind: Kind
        public let reason: String

        public init(_ kind: Kind, _ reason: String) {
            self.kind = kind
            self.reason = reason
        }
    }

    public let pool: ChatSessionPool
    /// The peer id every connection of the session says hello with: random, or one the client
    /// kept from an earlier run (``SessionSlot``), given to ``start(nick:peer:)``.
    public private(set) var peer: String
    public private(set) var state: State = .connecting
    public private(set) var current: ChatSession?
    public private(set) var nick: String
    /// The server's name from the last `welcome`.
    public private(set) var serverName: String?
    /// True once any connection got its `welcome`.
    public private(set) var everConnected = false
    /// Rooms joined, in joining order, with the last seq seen in each.
    public private(set) var rooms: [(name: String, lastSeq: Int64?)] = []
    /// What waits to be sent or to be answered.
    public private(set) var outbox: Outbox
    /// Each room's members, as the server's roster says.
    public private(set) var members = RoomMembers()
    /// The status the person chose: `online` or `away`.
    public private(set) var status = "online"
    /// The account this session is logged in as (from `welcome` or `account`); nil for a guest.
    public private(set) var account: String?
    /// The password sent in the hello of every new connection (PROTOCOL.md section 7), for a
    /// session logged in by password without a certificate bound: kept in memory only, so a
    /// reconnect logs in again.
    public var helloPassword: String?

    public var onMessage: (ChatMessage, ChatSession.Channel) -> Void = { _, _ in }
    /// Uploads and downloads, resumed on every new connection (PROTOCOL.md section 9).
    public let files: FileTransfers
    public var onState: (State) -> Void = { _ in }
    public var onProblem: (String) -> Void = { _ in }
    /// A room's member list changed (read it from ``members``).
    public var onMembersChanged: (String) -> Void = { _ in }

    /// The servers the session connects to, in the order it tries them (PROTOCOL.md section 10:
    /// the nodes of one chat system), and the backoff between attempts: a lost connection moves
    /// it to the next one.
    public private(set) var rotation: ServerRotation
    public var servers: [ServerAddress] { rotation.servers }
    /// Index in ``servers`` of the current connection's server, or of the next one tried.
    public var serverIndex: Int { rotation.index }
    public var currentServer: ServerAddress { rotation.current }
    /// Asked when, after the first `welcome`, the session moves to a server whose certificate no
    /// CA signs and no pin names (`--trust-on-first-use` says yes and remembers it): true pins it
    /// and connects to it; false leaves that server out for the rest of the run. Before the first
    /// `welcome` the session stops in ``State/unknownServer(fingerprint:)`` instead, to ask.
    public var trustsUnknownServer: (ServerAddress, String) -> Bool = { _, _ in false }

    private let loop: EventLoop
    /// Why each server failed before the first `welcome`, in the order tried.
    private var firstRoundFailures: [String] = []
    private var quitting = false
    private var random = SystemRandomNumberGenerator()
    private var sendTimer: LoopTimerID?
    /// The room the hello had to join although the person had left every room (a hello always
    /// joins one): left again after the `welcome`.
    private var unwantedHelloRoom: String?

    /// `rooms`: the rooms to be in, the first joined by the hello. `servers`: the servers to use,
    /// in order; none: the pool's own server with the pool's TLS settings. Nothing happens before
    /// ``start()``.
    public init(pool: ChatSessionPool, loop: EventLoop, nick: String, rooms wanted: [String], servers: [ServerAddress] = []) {
        self.pool = pool
        self.loop = loop
        self.nick = nick
        rotation = ServerRotation(servers: servers.isEmpty
            ? [ServerAddress(host: pool.configuration.tls.serverName ?? pool.server.host, port: pool.server.port, address: pool.server,
                             policy: pool.configuration.tls.serverCertificatePolicy)]
            : servers)
        files = FileTransfers(loop: loop)
        peer = ChatSession.randomPeerID()
        outbox = Outbox(now: .now())
        let names = wanted.map { ChatValidation.normalizeRoom($0) ?? $0 }
        rooms = [(names.first ?? ChatLimits.defaultRoom, nil)]
        for room in names.dropFirst() where room != rooms[0].name { outbox.enqueue(.join(room: room)) }
    }

    /// Connects (the first connection; later ones are made by the session itself), as `nick`
    /// and `peer` when given.
    public func start(nick wanted: String? = nil, peer kept: String? = nil) throws {
        if let wanted { nick = wanted }
        if let kept { peer = kept }
        try connect()
    }

    public var isConnected: Bool { state == .connected }

    /// `msg` and `dm` not yet acknowledged by the server, oldest first.
    public var pendingMessages: [ChatMessage] { outbox.pendingMessages }

    /// Connected, nothing waiting to be sent, nothing unanswered.
    public var isSettled: Bool { isConnected && outbox.isEmpty }

    /// The current connection (for its statistics).
    public var connection: QuicConnection? { current?.connection }

    /// Asks for a request on the chat stream (`msg`, `dm`, `join`, `part`, `nick`, `history`):
    /// queued in order and sent as soon as the connection and the flood limit allow, again after
    /// a reconnect if it was not answered. False (nothing queued) when ``Outbox/capacity``
    /// requests wait already.
    @discardableResult
    public func send(_ message: ChatMessage) -> Bool {
        var message = message
        // A new password goes with the current one (docs/PROTOCOL.md sections 7-8, item 10): the
        // password this session logged in with, kept in memory; none when a certificate did.
        if message.messageType == .password, message.old == nil { message.old = helloPassword }
        guard outbox.enqueue(message) != nil else { return false }
        flush()
        return true
    }

    /// Sets the person's status (`online`, `away`): sent now if connected, and restored on every
    /// new connection.
    public func setStatus(_ word: String) {
        guard word != status else { return }
        status = word
        guard isConnected else { return }
        outbox.enqueue(.status(word), on: .presence)
        flush()
    }

    /// A typing indicator for a room: a datagram, or on the presence stream when the server takes
    /// no datagrams. Typing is not counted by the flood limit and not queued: stale typing is
    /// worthless.
    public func sendTyping(room: String, typing: Bool) {
        guard isConnected, let current else { return }
        if !current.sendTyping(room: room, typing: typing) {
            current.sendPresence(.typing(room: room, isTyping: typing))
        }
    }

    /// In ``State/unknownServer(fingerprint:)``: the person (or `--trust-on-first-use`) trusts
    /// that certificate. Every connection from now on pins it.
    public func trust(fingerprint: String) {
        guard case .unknownServer(let presented) = state, presented == fingerprint else { return }
        rotation.pinCurrent(fingerprint)
        setState(.connecting)
        do {
            try connect()
        } catch {
            connectionLost(QuicCloseReason(kind: .dropped, reason: "\(error)", byPeer: false))
        }
    }

    /// In ``State/refused(code:text:)``: says hello again with another nick.
    public func retry(nick wanted: String, password: String? = nil) {
        guard case .refused = state, current != nil else { return }
        nick = wanted
        helloPassword = password
        sayHelloAgain()
        setState(.connecting)
    }

    /// A new first `join` on the current connection (after a refusal, or a server too busy).
    private func sayHelloAgain() {
        guard let current else { return }
        let first = rooms.first ?? (ChatLimits.defaultRoom, nil)
        current.send(.join(nick: nick, peer: peer, room: first.name, since: first.lastSeq, password: helloPassword))
    }

    public func quit() {
        quitting = true
        current?.quit()
        setState(.stopped(Ending(.quit, "quit")))
    }

    // MARK: Sending

    private func flush() {
        if let sendTimer { loop.cancel(sendTimer) }
        sendTimer = nil
        guard isConnected, let current else { return }
        let now = QuicTime.now()
        for entry in outbox.takeDue(now: now) {
            switch entry.channel {
            case .chat: current.send(entry.message)
            case .presence: current.sendPresence(entry.message)
            }
        }
        guard let deadline = outbox.nextDeadline(now: now) else { return }
        sendTimer = loop.schedule(at: deadline) { [weak self] in
            self?.sendTimer = nil
            self?.flush()
        }
    }

    // MARK: Wiring one connection

    private func connect() throws {
        let first = rooms.first ?? (ChatLimits.defaultRoom, nil)
        unwantedHelloRoom = rooms.isEmpty ? first.name : nil
        let session = try pool.connect(nick: nick, peer: peer, room: first.name, since: first.lastSeq, to: rotation.current)
        session.initialStatus = status
        session.helloPassword = helloPassword
        current = session
        session.onMessage = { [unowned self, unowned session] message, channel in
            guard session === current else { return }
            if track(message) { onMessage(message, channel) }
        }
        session.onProblem = { [unowned self] problem in onProblem(problem) }
        session.onFileStreamEvent = { [unowned self, unowned session] event in
            guard session === current else { return }
            files.handle(event)
        }
        session.onClose = { [unowned self, unowned session] reason in
            guard session === current else { return }
            connectionLost(reason, verdict: session.connection.serverCertificateVerdict)
        }
    }

    /// Follows what the server says; false for a message the session handled itself (a
    /// `rate-limited` refusal of something it sends again).
    private func track(_ message: ChatMessage) -> Bool {
        for room in members.apply(message, ownNick: nick) { onMembersChanged(room) }
        if let seq = message.resumeSeq, let room = message.room, let index = rooms.firstIndex(where: { $0.name == room }) {
            rooms[index].lastSeq = max(rooms[index].lastSeq ?? seq, seq)
        }
        let isLive = message.replay != true
        let room = message.roomOrDefault
        switch message.messageType {
        case .welcome:
            welcomed(message)
        case .joined where isLive && same(message.sender, nick):
            if !rooms.contains(where: { $0.name == room }) { rooms.append((room, message.seq)) }
            answered { $0.type == MessageType.join.rawValue && ChatValidation.normalizeRoom($0.roomOrDefault) == room }
        case .left where isLive && same(message.sender, nick):
            rooms.removeAll { $0.name == room }
            members.forget(room)
            answered { $0.type == MessageType.part.rawValue && ChatValidation.normalizeRoom($0.roomOrDefault) == room }
        case .nick where same(message.sender, nick):
            nick = message.text
            answered { $0.type == MessageType.nick.rawValue && same($0.text, message.text) }
        case .historyEnd:
            answered { $0.type == MessageType.history.rawValue && ChatValidation.normalizeRoom($0.roomOrDefault) == room }
        case .account:
            account = message.account
            // A password that logged in (or registered, or changed) logs in again after a reconnect.
            if let entry = outbox.answered(where: { Self.accountRequests.contains($0.type) }), let password = entry.message.password {
                helloPassword = password
            }
            flush()
        case .kicked where RoomMembers.removesOwnNick(message, nick), .banned where RoomMembers.removesOwnNick(message, nick):
            // Out of the room for good: no re-join after a reconnect.
            rooms.removeAll { $0.name == room }
            answerModeration(message)
        case .topic, .mode, .op, .deop, .kicked, .banned, .unbanned, .invite, .rooms, .whois:
            answerModeration(message)
        case .ack:
            if let id = message.id { outbox.answered(id: id) }
            flush()
        case .error:
            if message.code == ErrorCode.rateLimited.rawValue, let id = message.id, outbox.refused(id: id, now: .now()) {
                flush()
                return false
            }
            // The server could not store it now (a node that lost its store): sent again later,
            // with the same id, unless given up after many tries (then it is shown).
            if isConnected, message.code == ErrorCode.unavailable.rawValue, let id = message.id,
               outbox.unavailable(id: id, now: .now()).kept {
                flush()
                return false
            }
            if let id = message.id, outbox.answered(id: id) != nil {
                flush()
            } else if !isConnected, Self.helloRefusals.contains(message.code ?? "") {
                setState(.refused(code: message.code ?? "error", text: message.text))
                return false
            } else if !isConnected, ChatSession.isRefusedForNow(message) {
                // The server could not take the hello now (busy checking passwords): again shortly,
                // as this session says it now (``retry(nick:password:)`` may have changed the nick).
                let delay = UInt64(Double.random(in: 500...1500, using: &random))
                loop.schedule(at: .now() + .milliseconds(delay)) { [weak self] in
                    guard let self, !isConnected, !quitting else { return }
                    sayHelloAgain()
                }
                return false
            }
        default:
            break
        }
        return true
    }

    /// Errors that answer a hello (PROTOCOL.md sections 3 and 7): the connection stays open for
    /// another `join`. (`rate-limited` and `unavailable` before the welcome are a busy server:
    /// the hello is sent again by itself.)
    static let helloRefusals: Set<String> = ["bad-nick", "bad-room", "bad-login", "nick-registered", "account-required"]

    /// Requests answered by `account`.
    static let accountRequests: Set<String> = ["register", "login", "password", "certificate"]

    /// The event (or notice) that answers each moderation request.
    static let moderationAnswers: [String: String] = [
        "claim": "op", "topic": "topic", "mode": "mode", "op": "op", "deop": "deop", "kick": "kicked", "ban": "banned",
        "unban": "unbanned", "invite": "invite", "rooms": "rooms", "whois": "whois",
    ]

    /// A moderation event or answer of ours answers the oldest request of its kind in its room (no
    /// room: a server-wide one); `rooms` and `whois` have no sender to check.
    private func answerModeration(_ message: ChatMessage) {
        let isDirectory = message.messageType == .rooms || message.messageType == .whois
        guard isDirectory || same(message.sender, nick) else { return }
        let room = message.room
        answered { request in
            Self.moderationAnswers[request.type] == message.type
                && (isDirectory || request.room.flatMap(ChatValidation.normalizeRoom) == room)
        }
    }

    private func welcomed(_ message: ChatMessage) {
        nick = message.sender
        account = message.account
        serverName = message.text
        rotation.connected()
        everConnected = true
        outbox.connected(now: .now(), spent: 2)
        var first: [ChatMessage] = rooms.dropFirst().map { .join(room: $0.name, since: $0.lastSeq) }
        if let room = unwantedHelloRoom { first.insert(.part(room: room), at: 0) }
        outbox.enqueueFirst(first)
        setState(.connected)
        flush()
    }

    private func answered(where matches: (ChatMessage) -> Bool) {
        outbox.answered(where: matches)
        flush()
    }

    private func same(_ one: String, _ other: String) -> Bool {
        ChatValidation.nickKey(one) == ChatValidation.nickKey(other)
    }

    // MARK: Reconnecting

    private func connectionLost(_ reason: QuicCloseReason, verdict: ServerCertificateVerdict? = nil) {
        guard !quitting else { return }
        if let sendTimer { loop.cancel(sendTimer) }
        sendTimer = nil
        // A status is not sent again: the next hello opens with the current one. Nor a join of
        // a room the session is in: the next welcome re-joins every such room anyway.
        let joinedRooms = Set(rooms.map(\.name))
        let isRedundant: (ChatMessage) -> Bool = { message in
            message.type == MessageType.status.rawValue
                || (message.type == MessageType.join.rawValue
                    && joinedRooms.contains(ChatValidation.normalizeRoom(message.roomOrDefault) ?? message.roomOrDefault))
        }
        files.connectionLost()
        outbox.connectionLost { !isRedundant($0) }
        outbox.removeWaiting(where: isRedundant)
        members.connectionLost()
        if case .unknown(let presented)? = verdict {
            if !everConnected {
                setState(.unknownServer(fingerprint: presented))
                return
            }
            if trustsUnknownServer(currentServer, presented) {
                rotation.pinCurrent(presented)
                return retry(reason, delay: .zero)
            }
            return leaveOut(reason: "\(currentServer.label) is not trusted (its certificate sha256:\(presented) is not known)",
                            lost: reason)
        }
        if case .changed(let pinned, let presented)? = verdict {
            setState(.stopped(Ending(.certificateChanged(pinned: pinned, presented: presented), reason.description)))
            return
        }
        if let ending = Self.finalEnding(reason, state: state) {
            // Several servers: one that fails TLS is left out, the others still serve.
            if ending.kind == .untrusted, servers.count > 1 { return leaveOut(reason: "\(currentServer.label): \(ending.reason)", lost: reason) }
            setState(.stopped(ending))
            return
        }
        if !everConnected {
            // The first round: each server once, in order, at once; the end only when none answered.
            firstRoundFailures.append(servers.count > 1 ? "\(currentServer.label): \(reason.description)" : reason.description)
            guard firstRoundFailures.count + rotation.leftOutCount < servers.count, rotation.advance() else {
                setState(.stopped(Ending(.unreachable, firstRoundFailures.joined(separator: "; "))))
                return
            }
            return retry(reason, delay: .zero)
        }
        rotation.advance()
        retry(reason, delay: rotation.backoff(using: &random))
    }

    /// Connects again after `delay`, to ``currentServer``.
    private func retry(_ reason: QuicCloseReason, delay: QuicDuration) {
        setState(.reconnecting(attempt: max(1, rotation.attempt), reason: reason.description))
        loop.schedule(at: .now() + delay) { [weak self] in self?.reconnect() }
    }

    /// The current server is left out for the rest of the run (said through ``onProblem``); the
    /// session goes on with the next one, or ends, untrusted, when none is left.
    private func leaveOut(reason: String, lost: QuicCloseReason) {
        onProblem(reason + "; not using it")
        guard rotation.leaveOut() else {
            setState(.stopped(Ending(.untrusted, servers.count > 1 ? "no server left that is trusted (\(reason))" : reason)))
            return
        }
        if everConnected { rotation.countAttempt() }
        retry(lost, delay: .milliseconds(everConnected ? 500 : 0))
    }

    /// The closes that end the session instead of a reconnect (a first connection that never got
    /// its `welcome` ends it too, once every server was tried: ``connectionLost(_:verdict:)``).
    /// A person's client comes back from everything else, its own misbehaviour included
    /// (``ConnectionLoss/misbehaviour``).
    static func finalEnding(_ reason: QuicCloseReason, state: State) -> Ending? {
        switch ConnectionLoss(reason) {
        case .untrusted: return Ending(.untrusted, reason.description)
        case .removed: return Ending(.closed, reason.description)
        case .transient, .misbehaviour: break
        }
        if case .refused(let code, let text) = state { return Ending(.closed, "\(code): \(text)") }
        return nil
    }

    private func reconnect() {
        guard !quitting, case .reconnecting = state else { return }
        do {
            try connect()
        } catch {
            connectionLost(QuicCloseReason(kind: .dropped, reason: "\(error)", byPeer: false))
        }
    }

    private func setState(_ new: State) {
        guard new != state else { return }
        state = new
        if new == .connected, let connection = current?.connection { files.connected(connection) }
        onState(new)
    }
}
