import CLIOptions
import ChatClientKit
import ChatProtocol
import ChatTUI
import Glibc
import QuicEngine

/// The full-screen client: keys in, protocol events in, one frame drawn per batch of events (a
/// tick of the loop), only the changed cells written. The terminal is restored on every exit.
final class TUIMode {
    let options: ClientOptions
    let loop: EventLoop
    let session: ResilientSession
    let terminal = RawTerminal()
    var model: ChatViewModel
    var editor = LineEditor(historyLimit: 500)
    var decoder = KeyDecoder()
    var renderer: Renderer
    var lastFrame: Frame?
    var needsRender = true
    var escapeTimer: LoopTimerID?
    var typingTimer: LoopTimerID?
    var lastTypingSent: QuicTime?
    /// Per room, the lowest seq shown: `history` asks for what is before it.
    var oldestSeq: [String: Int64] = [:]
    var historyBuffer: [String: [ChatLine]] = [:]
    var historyRequested: Set<String> = []
    /// The room of the last /join, selected when its `joined` arrives.
    var pendingJoin: String?
    var status: Int32 = 0
    var exitMessage: String?

    init(options: ClientOptions) throws {
        self.options = options
        loop = try EventLoop()
        session = try ClientConnection.open(options, on: loop)
        model = ChatViewModel(serverName: "\(options.host):\(options.port)", nick: options.nick)
        let noColor = getenv("NO_COLOR").map { $0.pointee != 0 } ?? false
        renderer = Renderer(options: RenderOptions(colors: !noColor, utcOffsetSeconds: TUIMode.utcOffset(), now: unixMilliseconds()))
        session.onMessage = { [unowned self] message, channel in
            received(message, channel: channel)
            needsRender = true
        }
        session.onProblem = { [unowned self] problem in
            model.append(ChatLine(timestamp: unixMilliseconds(), nick: "", text: problem, kind: .error), to: currentRoomName)
        }
        session.onState = { [unowned self] state in
            changed(state)
            needsRender = true
        }
        try loop.handleSignals([SIGINT, SIGTERM, SIGWINCH, SIGHUP]) { [unowned self] signal in
            if signal == SIGWINCH {
                needsRender = true
            } else {
                exitMessage = "chat-client: stopped by signal \(signal)"
                quit()
            }
        }
        loop.addTick { [unowned self] in
            render()
            return (nil, false)
        }
    }

    func run() throws -> Int32 {
        try terminal.enter()
        defer { terminal.leave() }
        let flags = fcntl(0, F_GETFL)
        _ = fcntl(0, F_SETFL, flags | O_NONBLOCK)
        try loop.watchReadable(0) { [unowned self] in readKeys() }
        scheduleStatusRefresh()
        loop.run()
        terminal.leave()
        if let exitMessage { Console.error(exitMessage) }
        return status
    }

    var currentRoomName: String { model.currentRoom?.name ?? options.room }

    // MARK: Drawing

    func render() {
        guard needsRender, terminal.isActive else { return }
        needsRender = false
        let (columns, rows) = terminal.size
        let size = TerminalSize(columns: columns, rows: rows)
        let now = unixMilliseconds()
        model.removeExpiredTypists(now: now)
        renderer.options.now = now
        editor.scrollToCursor(width: renderer.inputWidth(for: model, size: size))
        let frame = renderer.render(model, editor: editor, size: size)
        terminal.write(FrameDiff.bytes(from: lastFrame, to: frame))
        lastFrame = frame
        // One timer for the next typist to expire, not one per frame.
        if let typingTimer { loop.cancel(typingTimer) }
        typingTimer = nil
        if let expiry = model.nextTypingExpiry {
            typingTimer = loop.schedule(at: .now() + .milliseconds(UInt64(max(0, expiry - now)) + 1)) { [unowned self] in
                typingTimer = nil
                needsRender = true
            }
        }
    }

    /// Refreshes the status bar's RTT once a second.
    private func scheduleStatusRefresh() {
        loop.schedule(at: .now() + .seconds(1)) { [unowned self] in
            if session.isConnected {
                let rtt = session.connection.statistics.smoothedRTT.milliseconds
                if model.roundTripMilliseconds != Int(rtt.rounded()) {
                    model.roundTripMilliseconds = Int(rtt.rounded())
                    needsRender = true
                }
            }
            scheduleStatusRefresh()
        }
    }

    // MARK: Ending

    func quit() {
        if session.isConnected {
            session.quit()
            loop.schedule(at: .now() + .milliseconds(150)) { [unowned self] in loop.stop() }
        } else {
            loop.stop()
        }
    }

    /// The status bar follows the connection; only a final close (kicked, replaced) ends the UI.
    private func changed(_ state: ResilientSession.State) {
        switch state {
        case .connecting: model.connection = .connecting
        case .connected: model.connection = .connected
        case .reconnecting(let attempt, let reason):
            model.connection = .reconnecting(attempt: attempt)
            note("connection lost (\(reason)); reconnecting", in: currentRoomName)
        case .stopped(let reason):
            model.connection = .disconnected(reason: reason)
            if reason != "quit" {
                exitMessage = "chat-client: connection closed: \(reason)"
                status = 1
            }
            loop.stop()
        }
    }

    private static func utcOffset() -> Int {
        var now = time(nil)
        var local = tm()
        localtime_r(&now, &local)
        return local.tm_gmtoff
    }
}

/// Wall-clock Unix milliseconds, as `ts` fields carry.
func unixMilliseconds() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec / 1_000_000)
}
