import ChatProtocol
import QuicEngine

/// A chat session that survives losing its connection without losing messages: it reconnects
/// with backoff and jitter under the same peer id, re-joins every room with `since` set to the
/// last seq it saw there, and resends every message the server has not acknowledged, with the
/// same ids, so nothing is missed and nothing is delivered twice (PROTOCOL.md section 3).
public final class ResilientSession {
    public enum State: Equatable, Sendable {
        case connecting
        case connected
        case reconnecting(attempt: Int, reason: String)
        case stopped(reason: String)
    }

    public let pool: ChatSessionPool
    public let peer: String
    public private(set) var state: State = .connecting
    public private(set) var current: ChatSession
    public private(set) var nick: String
    /// Rooms joined, in joining order, with the last seq seen in each.
    public private(set) var rooms: [(name: String, lastSeq: Int64?)] = []
    /// Messages sent and not yet acknowledged, oldest first.
    public private(set) var unacknowledged: [ChatMessage] = []

    public var onMessage: (ChatMessage, ChatSession.Channel) -> Void = { _, _ in }
    public var onState: (State) -> Void = { _ in }
    public var onProblem: (String) -> Void = { _ in }

    private let loop: EventLoop
    private var attempt = 0
    private var quitting = false
    private var random = SystemRandomNumberGenerator()

    public init(pool: ChatSessionPool, loop: EventLoop, nick: String, room: String) throws {
        self.pool = pool
        self.loop = loop
        self.nick = nick
        peer = ChatSession.randomPeerID()
        rooms = [(ChatValidation.normalizeRoom(room) ?? room, nil)]
        current = try pool.connect(nick: nick, peer: peer, room: room)
        wire(current)
    }

    public var isConnected: Bool { state == .connected }

    /// Sends on the chat stream; a `msg` or `dm` with an id is kept until its `ack` and resent
    /// after a reconnect.
    public func send(_ message: ChatMessage) {
        if message.id != nil && (message.type == "msg" || message.type == "dm") { unacknowledged.append(message) }
        if isConnected { current.send(message) }
    }

    public func sendPresence(_ message: ChatMessage) {
        if isConnected { current.sendPresence(message) }
    }

    @discardableResult
    public func sendTyping(room: String, typing: Bool) -> Bool {
        guard isConnected else { return false }
        return current.sendTyping(room: room, typing: typing)
    }

    public func quit() {
        quitting = true
        current.quit()
        setState(.stopped(reason: "quit"))
    }

    public var connection: QuicConnection { current.connection }

    // MARK: Wiring one connection

    private func wire(_ session: ChatSession) {
        session.onMessage = { [unowned self] message, channel in
            track(message)
            onMessage(message, channel)
        }
        session.onProblem = { [unowned self] problem in onProblem(problem) }
        session.onClose = { [unowned self, unowned session] reason in
            guard session === current else { return }
            connectionLost(reason)
        }
    }

    private func track(_ message: ChatMessage) {
        if let seq = message.seq, let room = message.room, let index = rooms.firstIndex(where: { $0.name == room }) {
            rooms[index].lastSeq = max(rooms[index].lastSeq ?? seq, seq)
        }
        switch message.type {
        case "welcome":
            nick = message.sender
            attempt = 0
            setState(.connected)
            // Rejoin every other room from where we left it; the first rode on the hello.
            for room in rooms.dropFirst() { current.send(.join(room: room.name, since: room.lastSeq)) }
            resend(where: { $0.type == "dm" })
        case "joined" where message.sender == nick && message.replay != true:
            if let room = message.room {
                if !rooms.contains(where: { $0.name == room }) { rooms.append((room, message.seq)) }
                resend(where: { $0.type == "msg" && $0.room == room })
            }
        case "left" where message.sender == nick && message.replay != true:
            rooms.removeAll { $0.name == message.room }
        case "nick" where message.sender == nick:
            nick = message.text
        case "ack", "error":
            if let id = message.id { unacknowledged.removeAll { $0.id == id } }
        default:
            break
        }
    }

    private func resend(where matches: (ChatMessage) -> Bool) {
        for message in unacknowledged where matches(message) { current.send(message) }
    }

    // MARK: Reconnecting

    private func connectionLost(_ reason: QuicCloseReason) {
        guard !quitting else { return }
        // An operator's kick or a newer connection of ours is final; anything else is retried.
        if reason.byPeer, let code = reason.applicationCode, code == CloseCode.kicked.rawValue || code == CloseCode.replaced.rawValue {
            setState(.stopped(reason: reason.description))
            return
        }
        attempt += 1
        setState(.reconnecting(attempt: attempt, reason: reason.description))
        // 0.5 s doubling to 10 s, times 0.5-1.5 so a restarted server is not hit by everyone at once.
        let base = min(10_000.0, 500.0 * Double(1 << min(attempt - 1, 5)))
        let delay = base * Double.random(in: 0.5...1.5, using: &random)
        loop.schedule(at: .now() + .milliseconds(UInt64(delay))) { [weak self] in self?.reconnect() }
    }

    private func reconnect() {
        guard !quitting, case .reconnecting = state else { return }
        let first = rooms.first ?? ("lobby", nil)
        do {
            current = try pool.connect(nick: nick, peer: peer, room: first.name, since: first.lastSeq)
            wire(current)
        } catch {
            connectionLost(QuicCloseReason(kind: .dropped, reason: "\(error)", byPeer: false))
        }
    }

    private func setState(_ new: State) {
        guard new != state else { return }
        state = new
        onState(new)
    }
}
