import ChatProtocol
import QuicEngine

/// The rules of a chat session that survives losing its connection, without any I/O: it takes
/// what happened (a message from the server, a lost connection, the person's requests, time
/// passing) and returns what to do (connect, write, tell the person), with the time at which it
/// wants to be woken (``deadline``). ``ResilientSession`` carries the actions out on a real
/// connection and a real clock; tests drive it with a virtual clock, in milliseconds.
///
/// What it keeps (PROTOCOL.md sections 3, 6 and 10): the peer id and nick every connection says
/// hello with, the rooms to be in with the last seq seen in each (re-joined with `since` after a
/// reconnect), the person's status, everything asked for and not yet answered (``Outbox``, paced
/// under the server's flood limit, sent again after a reconnect with the same ids), each room's
/// members (``RoomMembers``), and the servers with the backoff between attempts
/// (``ServerRotation``).
///
/// A failure before the first `welcome` is not retried (each server is tried once, in order)
/// unless ``firstConnectionPatience`` says to keep trying: the person gets one clear ending
/// (unreachable, untrusted certificate) or, when the server refuses the hello's nick or room,
/// ``SessionState/refused(code:text:)`` to pick another (``retry(nick:password:now:)``).
public struct SessionCore {
    /// What a new connection says in its first `join` and opens its presence stream with.
    public struct Hello: Equatable, Sendable {
        public let nick: String
        public let peer: String
        public let room: String
        public let since: Int64?
        public let status: String
        public let password: String?
        /// The reason of an `away` status (version 1.2, section 14; a 1.1 server ignores it).
        public var away: String? = nil
    }

    public enum Action: Equatable, Sendable {
        /// Open a connection to the server and say `hello` on it; it replaces the current one.
        case connect(ServerAddress, Hello)
        /// Write a message on the current connection's chat or presence stream.
        case write(ChatMessage, Outbox.Channel)
        /// Close the current connection (the person quit).
        case close
        /// A message from the server for the person (not those the session handled itself).
        case deliver(ChatMessage, ChatSession.Channel)
        case state(SessionState)
        /// Something for the person to know (a server left out).
        case problem(String)
        /// A room's member list changed (read it from ``members``).
        case membersChanged(String)
        /// A connection got its `welcome`: transfers go on on it.
        case filesConnected
        /// The connection is gone: transfers wait for the next.
        case filesLost
        /// After the first `welcome` the session reached a server whose certificate no CA signs
        /// and no pin names: answer with ``trustDecided(_:now:)`` (true pins it and connects).
        case decideTrust(ServerAddress, fingerprint: String)
    }

    public internal(set) var state: SessionState = .connecting
    /// The peer id every connection says hello with.
    public internal(set) var peer: String
    public internal(set) var nick: String
    /// The nick the last hello asked for: a `welcome` with another one means it was taken.
    public internal(set) var helloNick = ""
    /// The status the current connection opens its presence stream with: a connection attempt
    /// started before an `/away` typed during an outage says the older one, so the welcome sends
    /// the newer after it.
    var helloStatus = "online"
    var helloAway: String?
    /// The server's name from the last `welcome`.
    public internal(set) var serverName: String?
    /// What the last `welcome` listed in `features` (`edits`, `reactions`, `search`, `always-on`
    /// of version 1.2: commands that need one the server lacks are refused before sending).
    public internal(set) var features: Set<String> = []
    /// True once any connection got its `welcome`.
    public internal(set) var everConnected = false
    /// Rooms joined, in joining order, with the last seq seen in each.
    public internal(set) var rooms: [(name: String, lastSeq: Int64?)] = []
    /// What waits to be sent or to be answered.
    public internal(set) var outbox: Outbox
    /// The account's read markers (version 1.2, PROTOCOL.md section 13).
    public internal(set) var readMarkers = ReadMarkers()
    /// The last seq seen in each private conversation (version 1.2), by nick key: a `welcome`
    /// listing one with newer messages asks for what came after it.
    var conversationSeqs: [String: Int64] = [:]
    /// The replayed `dm`s each conversation's `history` `since` brought so far, by nick key: a
    /// full page (``conversationPage``) is followed by the next one.
    var conversationPages: [String: Int] = [:]
    /// What one `history` `since` brings at most (PROTOCOL.md section 17: default and at most 200).
    public static let conversationPage = 200
    /// Each room's members, as the server's roster says.
    public internal(set) var members = RoomMembers()
    /// The status the person chose: `online` or `away`.
    public internal(set) var status = "online"
    /// The reason given with `away` (nil: none, or online).
    public internal(set) var awayReason: String?
    /// The account this session is logged in as (from `welcome` or `account`); nil for a guest.
    public internal(set) var account: String?
    /// The password sent in the hello of every new connection (PROTOCOL.md section 7), for a
    /// session logged in by password without a certificate bound: kept in memory only, so a
    /// reconnect logs in again.
    public var helloPassword: String?
    /// The servers, the one in use and the backoff of the attempts.
    public internal(set) var rotation: ServerRotation
    /// How long a first connection that never got its `welcome` keeps being tried, each server
    /// in turn with the backoff of a reconnect; nil: each server once, then the session ends
    /// (unreachable). ``forever`` tries for ever.
    public var firstConnectionPatience: TimeSpan?
    public static let forever = TimeSpan(nanoseconds: .max)

    /// Why each server failed before the first `welcome`, in the order tried.
    var firstRoundFailures: [String] = []
    /// When the first attempt started (for ``firstConnectionPatience``).
    var firstAttemptAt: MonotonicTime?
    var quitting = false
    /// A quit with a message waits for the server's close until then (``quit(message:id:now:)``).
    var quitAt: MonotonicTime?
    var quitRequestID: String?
    /// A connection is open (made, not yet closed).
    var hasConnection = false
    var random: any RandomNumberGenerator
    /// The room the hello had to join although the person had left every room (a hello always
    /// joins one): left again after the `welcome`.
    var unwantedHelloRoom: String?
    /// The room the last hello named, until its answer comes: the own live `joined` there, or an
    /// `error`. A server that stores before it shows (one off its event loop, a node of several)
    /// sends `welcome` first and the room's `joined` a store round later.
    public internal(set) var helloRoomUnanswered: String?
    /// When the outbox wants to send next, the next reconnect is due, the hello is to be said
    /// again (a busy server).
    var sendAt: MonotonicTime?
    var reconnectAt: MonotonicTime?
    var helloAgainAt: MonotonicTime?
    /// A server met after the first `welcome` whose certificate is unknown: waiting for
    /// ``trustDecided(_:now:)``.
    var trustQuestion: (fingerprint: String, lost: QuicCloseReason)?
    /// The last seq seen in each room the person was kicked or banned from: a `join` of it
    /// asks for what came after (the person's screen still shows what came before).
    var removedAt: [String: Int64] = [:]
    /// What the last call produced, handed back at its end.
    var actions: [Action] = []

    /// `rooms`: the rooms to be in, the first joined by the hello. Nothing happens before
    /// ``start(now:)``.
    public init(nick: String, peer: String, rooms wanted: [String], servers: [ServerAddress], now: MonotonicTime,
                random: any RandomNumberGenerator = SystemRandomNumberGenerator()) {
        self.nick = nick
        self.peer = peer
        self.random = random
        rotation = ServerRotation(servers: servers)
        outbox = Outbox(now: now)
        let names = wanted.map { ChatValidation.normalizeRoom($0) ?? $0 }
        rooms = [(names.first ?? ChatLimits.defaultRoom, nil)]
        for room in names.dropFirst() where room != rooms[0].name { outbox.enqueue(.join(room: room)) }
    }

    /// When to call ``tick(now:)`` next; nil when nothing is due without an event.
    public var deadline: MonotonicTime? { [sendAt, reconnectAt, helloAgainAt, quitAt].compactMap { $0 }.min() }

    public var isConnected: Bool { state == .connected }

    // MARK: The person

    /// Connects for the first time, as `nick` and `peer` when given.
    public mutating func start(nick wanted: String? = nil, peer kept: String? = nil, now: MonotonicTime) -> [Action] {
        if let wanted { nick = wanted }
        if let kept { peer = kept }
        firstAttemptAt = now
        connect()
        return taken()
    }

    /// Queues a request on the chat stream; false (nothing queued) when ``Outbox/capacity``
    /// requests wait already.
    public mutating func send(_ message: ChatMessage, now: MonotonicTime) -> (accepted: Bool, actions: [Action]) {
        var message = message
        // A new password goes with the current one (docs/PROTOCOL.md sections 7-8, item 10): the
        // password this session logged in with, kept in memory; none when a certificate did.
        if message.messageType == .password, message.old == nil { message.old = helloPassword }
        if message.messageType == .join, message.since == nil, let room = ChatValidation.normalizeRoom(message.roomOrDefault),
           let seq = removedAt[room] {
            message.since = seq
        }
        guard outbox.enqueue(message) != nil else { return (false, taken()) }
        flush(now: now)
        return (true, taken())
    }

    /// The person's status (`online`, `away`): sent now if connected, and said in every hello.
    /// With `away`, the reason goes in the status's `away` field (version 1.2, section 14: the
    /// server answers private messages with it; a 1.1 server ignores the field).
    public mutating func setStatus(_ word: String, reason: String? = nil, now: MonotonicTime) -> [Action] {
        let reason = word == "away" && reason?.isEmpty == false ? reason : nil
        guard word != status || reason != awayReason else { return [] }
        status = word
        awayReason = reason
        if isConnected {
            outbox.enqueue(statusMessage, on: .presence)
            flush(now: now)
        }
        return taken()
    }

    /// The `status` the person's choice is said with.
    var statusMessage: ChatMessage {
        var message = ChatMessage.status(status)
        message.away = awayReason
        return message
    }

    /// In ``SessionState/unknownServer(fingerprint:)``: the person trusts that certificate; every
    /// connection from now on pins it.
    public mutating func trust(fingerprint: String, now: MonotonicTime) -> [Action] {
        guard case .unknownServer(let presented) = state, presented == fingerprint else { return [] }
        rotation.pinCurrent(fingerprint)
        setState(.connecting)
        connect()
        return taken()
    }

    /// The answer to ``Action/decideTrust(_:fingerprint:)``.
    public mutating func trustDecided(_ trusted: Bool, now: MonotonicTime) -> [Action] {
        guard let question = trustQuestion else { return [] }
        trustQuestion = nil
        if trusted {
            rotation.pinCurrent(question.fingerprint)
            retry(question.lost, delay: .zero, now: now)
        } else {
            leaveOut(reason: "\(rotation.current.label) is not trusted (its certificate sha256:\(question.fingerprint) is not known)",
                     lost: question.lost, now: now)
        }
        return taken()
    }

    /// In ``SessionState/refused(code:text:)``: says hello again with another nick.
    public mutating func retry(nick wanted: String, password: String? = nil, now: MonotonicTime) -> [Action] {
        guard case .refused = state, hasConnection else { return [] }
        nick = wanted
        helloPassword = password
        sayHelloAgain()
        setState(.connecting)
        return taken()
    }

    /// How long a quit with a message waits for the server to close the connection: an older
    /// server answers `unknown-type` and closes nothing, a connection just lost answers nothing.
    public static let quitMessagePatience = TimeSpan.seconds(2)

    /// `/quit MESSAGE` (issue 24): the `quit` request goes to the server, which closes the
    /// connection and tells the rooms `quit: MESSAGE`; the session ends when the connection does,
    /// or closes it itself at an error answering the request (an older server) or after
    /// ``quitMessagePatience``. Without a connection, a plain quit.
    public mutating func quit(message: String, id: String, now: MonotonicTime) -> [Action] {
        guard isConnected else { return quit() }
        quitting = true
        sendAt = nil
        reconnectAt = nil
        helloAgainAt = nil
        quitRequestID = id
        quitAt = now + Self.quitMessagePatience
        actions.append(.write(.quit(text: message, id: id), .chat))
        return taken()
    }

    public mutating func quit() -> [Action] {
        quitting = true
        quitAt = nil
        quitRequestID = nil
        sendAt = nil
        reconnectAt = nil
        helloAgainAt = nil
        if hasConnection { actions.append(.close) }
        setState(.stopped(SessionEnding(.quit, "quit")))
        return taken()
    }

    /// The person saw `place` up to message `seq`: the account's read marker moves there
    /// (version 1.2, section 13), when the server keeps them (`always-on`, logged in) and it is
    /// a move forward; a `read` has no answer.
    public mutating func markRead(_ place: MessageTarget, upTo seq: Int64, now: MonotonicTime) -> [Action] {
        guard features.contains(ServerFeature.alwaysOn), account != nil, let read = readMarkers.shown(place, upTo: seq) else { return [] }
        outbox.enqueue(read)
        flush(now: now)
        return taken()
    }

    // MARK: Time

    /// Does what is due at `now`: the next paced requests, a reconnect, a hello said again.
    public mutating func tick(now: MonotonicTime) -> [Action] {
        if let at = quitAt, at <= now { return quit() }
        if let at = reconnectAt, at <= now {
            reconnectAt = nil
            if !quitting, case .reconnecting = state { connect() }
        }
        if let at = helloAgainAt, at <= now {
            helloAgainAt = nil
            if !isConnected, !quitting, hasConnection { sayHelloAgain() }
        }
        if let at = sendAt, at <= now { flush(now: now) }
        return taken()
    }

    // MARK: Internals shared by the extensions

    mutating func taken() -> [Action] {
        defer { actions = [] }
        return actions
    }

    /// Writes what the outbox lets out now and notes when it wants to go on.
    mutating func flush(now: MonotonicTime) {
        sendAt = nil
        guard isConnected else { return }
        for entry in outbox.takeDue(now: now) { actions.append(.write(entry.message, entry.channel)) }
        sendAt = outbox.nextDeadline(now: now)
    }

    /// A new connection to the current server, saying hello as the session stands.
    mutating func connect() {
        let first = rooms.first ?? (ChatLimits.defaultRoom, nil)
        unwantedHelloRoom = rooms.isEmpty ? first.name : nil
        hasConnection = true
        helloNick = nick
        helloStatus = status
        helloAway = awayReason
        helloRoomUnanswered = ChatValidation.normalizeRoom(first.name) ?? first.name
        actions.append(.connect(rotation.current, Hello(nick: nick, peer: peer, room: first.name, since: first.lastSeq, status: status,
                                                        password: helloPassword, away: awayReason)))
    }

    /// A new first `join` on the current connection (after a refusal, or a server too busy).
    mutating func sayHelloAgain() {
        let first = rooms.first ?? (ChatLimits.defaultRoom, nil)
        helloNick = nick
        helloRoomUnanswered = ChatValidation.normalizeRoom(first.name) ?? first.name
        actions.append(.write(.join(nick: nick, peer: peer, room: first.name, since: first.lastSeq, password: helloPassword), .chat))
    }

    mutating func setState(_ new: SessionState) {
        guard new != state else { return }
        state = new
        if new == .connected { actions.append(.filesConnected) }
        actions.append(.state(new))
    }

    static func same(_ one: String, _ other: String) -> Bool {
        ChatValidation.nickKey(one) == ChatValidation.nickKey(other)
    }
}
