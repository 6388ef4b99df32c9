import ChatProtocol
import QuicEngine

@testable import ChatClientKit

/// A ``SessionCore`` on a virtual clock, with the actions it asked for written down: a session's
/// rules run in microseconds, with no socket, no server and no real time.
struct VirtualSession {
    var core: SessionCore
    var now = MonotonicTime(nanoseconds: 1_000_000_000)
    /// Every action so far, in order.
    var actions: [SessionCore.Action] = []

    static func servers(_ count: Int) -> [ServerAddress] {
        (1...count).map { ServerAddress(host: "node\($0)", port: 4433, address: SocketAddress(host: "127.0.0.\($0)", port: 4433)!) }
    }

    init(nick: String = "alice", rooms: [String] = ["lobby"], servers: Int = 1, patience: TimeSpan? = nil) {
        core = SessionCore(nick: nick, peer: "PEER", rooms: rooms, servers: Self.servers(servers), now: now, random: CountingRandom())
        core.firstConnectionPatience = patience
    }

    mutating func record(_ new: [SessionCore.Action]) { actions += new }

    mutating func start() { record(core.start(now: now)) }

    mutating func receive(_ message: ChatMessage, on channel: ChatSession.Channel = .chat) {
        record(core.received(message, on: channel, now: now))
    }

    mutating func welcome(as nick: String = "alice") {
        receive(ChatMessage(type: "welcome", text: "test server", sender: nick, peer: "PEER"))
    }

    /// The own live `joined` of a room, with its seq.
    mutating func joined(_ room: String, seq: Int64, as nick: String = "alice") {
        receive(ChatMessage(type: "joined", sender: nick, room: room, seq: seq, ts: 1))
    }

    mutating func lose(_ kind: QuicCloseReason.Kind = .idleTimeout, byPeer: Bool = false, verdict: ServerCertificateVerdict? = nil) {
        record(core.closed(QuicCloseReason(kind: kind, reason: "lost", byPeer: byPeer), verdict: verdict, now: now))
    }

    mutating func send(_ message: ChatMessage) -> Bool {
        let (accepted, new) = core.send(message, now: now)
        record(new)
        return accepted
    }

    /// Moves the clock by `duration` (doing what falls due on the way, in order).
    mutating func advance(_ duration: TimeSpan) {
        let end = now + duration
        while let deadline = core.deadline, deadline <= end {
            now = max(now, deadline)
            record(core.tick(now: now))
        }
        now = end
    }

    /// Moves the clock to the core's deadline and does what is due.
    mutating func advanceToDeadline() {
        guard let deadline = core.deadline else { return }
        now = max(now, deadline)
        record(core.tick(now: now))
    }

    /// The actions since `mark` (an index into ``actions``).
    func actions(since mark: Int) -> [SessionCore.Action] { Array(actions[mark...]) }

    /// The hellos of every connection made, in order.
    var connections: [(server: String, hello: SessionCore.Hello)] {
        actions.compactMap { if case .connect(let server, let hello) = $0 { (server.host, hello) } else { nil } }
    }

    /// The messages written on the chat stream, as `type room text`.
    var written: [String] {
        actions.compactMap { action in
            guard case .write(let message, _) = action else { return nil }
            return [message.type, message.room ?? "-", message.since.map { "since \($0)" }, message.text.isEmpty ? nil : message.text]
                .compactMap { $0 }.joined(separator: " ")
        }
    }

    var states: [SessionState] { actions.compactMap { if case .state(let state) = $0 { state } else { nil } } }

    /// The ids of the `msg`s written, in order.
    var writtenIDs: [String] {
        actions.compactMap { if case .write(let message, _) = $0, message.type == "msg" { message.id } else { nil } }
    }
}

/// A generator whose doubles are always in the middle of their range (0.5 of the way), so a
/// backoff of 0.5-1.5 times its base is exactly its base.
struct CountingRandom: RandomNumberGenerator {
    mutating func next() -> UInt64 { 1 << 63 }
}
