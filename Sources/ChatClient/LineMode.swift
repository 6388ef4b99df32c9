import CLIOptions
import ChatClientKit
import ChatProtocol
import Glibc
import QuicEngine

/// The scriptable client: each input line is a message to the current room or a /command; each
/// event is printed as one line (or one JSON object with --json). Exits when stdin ends and every
/// message sent has been acknowledged, or when the connection closes.
final class LineMode {
    private let options: ClientOptions
    private let loop: EventLoop
    private var session: ResilientSession!
    private var currentRoom: String
    private var everConnected = false
    private var lastProblem: String?
    private var inputEnded = false
    private var pending: [UInt8] = []
    private(set) var status: Int32 = 0

    init(options: ClientOptions) throws {
        self.options = options
        currentRoom = options.room
        loop = try EventLoop()
        session = try ClientConnection.open(options, on: loop)
        session.onMessage = { [unowned self] message, _ in show(message) }
        session.onProblem = { problem in Console.error("chat-client: \(problem)") }
        session.onState = { [unowned self] state in changed(state) }
        watchInput()
        try loop.handleSignals([SIGINT, SIGTERM]) { [unowned self] _ in quit() }
    }

    func run() -> Int32 {
        loop.run()
        return status
    }

    // MARK: Input

    private func watchInput() {
        let flags = fcntl(0, F_GETFL)
        _ = fcntl(0, F_SETFL, flags | O_NONBLOCK)
        try? loop.watchReadable(0) { [unowned self] in readInput() }
    }

    private func readInput() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = read(0, &buffer, buffer.count)
        if count < 0 && (errno == EAGAIN || errno == EINTR) { return }
        if count <= 0 {
            loop.unwatch(0)
            if !pending.isEmpty { command(String(decoding: pending, as: UTF8.self)) }
            pending.removeAll()
            inputEnded = true
            quitWhenSettled()
            return
        }
        pending += buffer[..<count]
        while let newline = pending.firstIndex(of: 10) {
            let line = String(decoding: pending[..<newline], as: UTF8.self)
            pending.removeSubrange(...newline)
            command(line)
        }
    }

    private func command(_ line: String) {
        let text = line.hasSuffix("\r") ? String(line.dropLast()) : line
        guard !text.isEmpty else { return }
        guard text.hasPrefix("/") else {
            sendTracked(.msg(room: currentRoom, text: text, id: ChatSession.randomPeerID()))
            return
        }
        let words = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true).map(String.init)
        switch words[0] {
        case "/join" where words.count >= 2:
            currentRoom = words[1].lowercased()
            session.send(.join(room: currentRoom))
        case "/part":
            session.send(.part(room: words.count >= 2 ? words[1] : currentRoom))
        case "/msg" where words.count == 3:
            sendTracked(.dm(to: words[1], text: words[2], id: ChatSession.randomPeerID()))
        case "/nick" where words.count >= 2:
            session.send(.nick(words[1]))
        case "/away":
            session.sendPresence(.status("away"))
        case "/back":
            session.sendPresence(.status("online"))
        case "/history":
            session.send(.history(room: currentRoom, limit: words.count >= 2 ? Int(words[1]) : nil))
        case "/quit":
            inputEnded = true
            quitWhenSettled()
        default:
            Console.error(ClientOptions.usage.split(separator: "\n").last.map(String.init) ?? "")
        }
    }

    private func sendTracked(_ message: ChatMessage) {
        session.send(message)
    }

    // MARK: Output

    private func show(_ message: ChatMessage) {
        if options.json {
            Console.line(String(decoding: message.encodedDatagram(), as: UTF8.self))
        } else if let line = PlainFormatter.line(for: message) {
            Console.line(line)
        }
    }

    /// Quits once the server has acknowledged everything sent (across reconnects), or after a
    /// minute without getting there.
    private func quitWhenSettled(deadline: QuicTime = .now() + .seconds(60)) {
        if session.unacknowledged.isEmpty || QuicTime.now() >= deadline {
            if !session.unacknowledged.isEmpty {
                Console.error("chat-client: \(session.unacknowledged.count) message(s) never acknowledged")
                status = 1
            }
            quit()
        } else {
            loop.schedule(at: .now() + .milliseconds(100)) { [unowned self] in quitWhenSettled(deadline: deadline) }
        }
    }

    private func quit() {
        if !everConnected {
            Console.error("chat-client: could not reach \(options.host):\(options.port)\(lastProblem.map { " (\($0))" } ?? "")")
            status = 1
        }
        guard session.isConnected else { return loop.stop() }
        session.quit()
        loop.schedule(at: .now() + .milliseconds(100)) { [unowned self] in loop.stop() }
    }

    private func changed(_ state: ResilientSession.State) {
        switch state {
        case .reconnecting(let attempt, let reason):
            lastProblem = reason
            Console.error("chat-client: connection lost (\(reason)); reconnecting, attempt \(attempt)")
        case .connected where everConnected:
            Console.error("chat-client: reconnected")
        case .connected:
            everConnected = true
        case .stopped(let reason) where reason != "quit":
            Console.error("chat-client: connection closed: \(reason)")
            status = 1
            loop.stop()
        default:
            break
        }
    }
}
