import CLIOptions
import ChatClientKit
import ChatProtocol
import Glibc
import QuicIO

/// `chat-bot flood`: joins a room and sends messages at `--rate` while joined, counting what the
/// server accepts and refuses and how it ends each connection; with `--reconnect` it comes back
/// at once, as a determined flooder would, so the flood lasts the whole `--duration`.
final class FloodBot {
    /// What happened on one connection.
    struct ConnectionRecord {
        var sent = 0
        var acknowledged = 0
        var rateLimited = 0
        var joinedAt: MonotonicTime?
        var closedAfter: TimeSpan?
        var close = "open"
    }

    private let options: FloodOptions
    private let loop: EventLoop
    private let pool: ChatSessionPool
    private let start = MonotonicTime.now()
    private let end: MonotonicTime
    private var session: ChatSession?
    private var records: [ConnectionRecord] = []
    private var otherErrors: [String: Int] = [:]
    private var finished = false
    private var reported = false
    private let text: String

    init(options: FloodOptions) throws {
        self.options = options
        loop = try EventLoop()
        pool = try options.connection.makePool(on: loop)
        end = start + LoadRun.duration(options.duration)
        text = String(repeating: "f", count: options.size)
        try loop.handleSignals([SIGINT, SIGTERM]) { [unowned self] _ in finish() }
    }

    func run() -> Int32 {
        connect()
        loop.schedule(at: end) { [unowned self] in finish() }
        pump()
        loop.run()
        return records.contains { $0.joinedAt != nil } ? 0 : 1
    }

    private func connect() {
        guard !finished else { return }
        let session: ChatSession
        do {
            session = try pool.connect(nick: options.nick, room: options.room)
        } catch {
            Console.error("chat-bot flood: cannot connect: \(error)")
            return finish()
        }
        let index = records.count
        records.append(ConnectionRecord())
        self.session = session
        session.onMessage = { [unowned self] message, _ in receive(message, on: index) }
        session.onClose = { [unowned self] reason in closed(index, reason) }
    }

    private func receive(_ message: ChatMessage, on index: Int) {
        switch message.type {
        case "joined" where message.sender == session?.assignedNick && records[index].joinedAt == nil:
            records[index].joinedAt = .now()
        case "ack":
            records[index].acknowledged += 1
        case "error" where message.code == ErrorCode.rateLimited.rawValue:
            records[index].rateLimited += 1
        case "error":
            otherErrors[message.code ?? "unknown", default: 0] += 1
        default:
            break
        }
    }

    private func closed(_ index: Int, _ reason: QuicCloseReason) {
        if case .application(let code) = reason.kind {
            records[index].close = CloseCode(rawValue: code)?.name ?? "code \(code)"
        } else {
            records[index].close = reason.description
        }
        records[index].closedAfter = records[index].joinedAt.map { .now() - $0 }
        session = nil
        guard !finished else { return stopWhenClosed() }
        guard options.reconnect else { return finish() }
        // A connection that never joined (server down, handshake failed) is retried after a
        // pause so a missing server does not make this a busy loop.
        let pause: TimeSpan = records[index].joinedAt == nil ? .milliseconds(100) : .zero
        loop.schedule(at: .now() + pause) { [unowned self] in connect() }
    }

    /// Sends what the schedule owes since this connection joined; the next tick in 1 ms.
    private func pump() {
        guard !finished else { return }
        if let session, session.isOpen, let index = records.indices.last, let joinedAt = records[index].joinedAt {
            let owed = Int((MonotonicTime.now() - joinedAt).seconds * options.rate) + 1 - records[index].sent
            for _ in 0..<max(0, owed) {
                records[index].sent += 1
                session.send(.msg(room: options.room, text: text, id: "flood-\(records.count)-\(records[index].sent)"))
            }
        }
        loop.schedule(at: .now() + .milliseconds(1)) { [unowned self] in pump() }
    }

    private func finish() {
        guard !finished else { return }
        finished = true
        session?.quit()
        loop.schedule(at: .now() + .seconds(2)) { [unowned self] in report() }
        stopWhenClosed()
    }

    private func stopWhenClosed() {
        if session == nil { report() }
    }

    private func report() {
        guard !reported else { return }
        reported = true
        let report = FloodReport(options: options, seconds: (MonotonicTime.now() - start).seconds, records: records, otherErrors: otherErrors)
        Console.line(report.table())
        if let path = options.jsonPath, !FileInput.write(report.json(), to: path) {
            Console.error("chat-bot flood: cannot write \(path)")
        }
        loop.stop()
    }
}
