import CLIOptions
import ChatClientKit
import ChatProtocol
import ChatTUI
import Glibc
import QuicIO

/// The full-screen client: keys in, protocol events in, one frame drawn per batch of events (a
/// tick of the loop), only the changed cells written. The terminal is restored on every exit,
/// and on Ctrl-Z until `fg`.
final class TUIMode {
    let options: ClientOptions
    let loop: EventLoop
    let session: ResilientSession
    let terminal = RawTerminal()
    var model: ChatViewModel
    var editor = LineEditor(historyLimit: InputHistoryFile.kept)
    /// The lines typed, kept across restarts.
    var inputHistory: InputHistoryFile
    /// What was being typed in each buffer not shown (issue 24, habits: a draft per buffer),
    /// and the buffer the input line belongs to now.
    var drafts: [String: String] = [:]
    var draftBuffer: String?
    /// While a password is asked for (``SecretEntry``), what is typed goes here, not into `editor`.
    var secretEntry: SecretEntry?
    var secretEditor = LineEditor(historyLimit: 0)
    let keys: TerminalKeys
    var renderer: Renderer
    var highlights: HighlightMatcher
    let privateMessages: PrivateMessageStore
    let log: RoomLog?
    var lastFrame: Frame?
    var needsRender = true
    var typingTimer: LoopTimerID?
    var lastTypingSent: MonotonicTime?
    var typingRoom: String?
    /// Per room, the lowest seq shown: `history` asks for what is before it.
    var oldestSeq: [String: Int64] = [:]
    var historyBuffer: [String: [ChatLine]] = [:]
    var historyRequested: Set<String> = []
    /// Rooms whose `history` answer a `/history` asked for: its end says what came.
    var historyAnnounced: Set<String> = []
    /// The room to show once our own `joined` for it arrives (the first room, then each /join);
    /// nil otherwise, so the re-joins of a reconnect never move the person.
    var roomToShow: String?
    /// Who is ignored (`/ignore`): nothing of theirs is shown.
    var ignoring: IgnoreSetting
    var smartFilter: SmartFilter
    /// Who was told the person is away (``AwayReplies``).
    var awayReplies = AwayReplies()
    /// What `/transfers` lists of the transfers that ended.
    var transferHistory = TransferHistory()
    /// Where the rooms the client is in are kept for the next run (nil: not kept).
    let rememberedRooms: RememberedRooms?
    /// The `left (shutdown)` and `joined` again of every member at each server restart, hidden.
    var restartNoise = RestartNoise()
    var repeatedMessages = RepeatedMessages()
    /// `/join`s not yet answered, by request id: a refusal closes the room's buffer again.
    var pendingJoins: [String: String] = [:]
    /// The rooms of the last `/rooms` listing, for Tab completion.
    var listedRooms: [String] = []
    /// Our messages not yet acknowledged, by id: where they go to the log and the private store.
    var sentLines: [String: (buffer: String, line: ChatLine, message: ChatMessage)] = [:]
    /// What the last `/search` on the server searched (the buffer, its place, the words), and the
    /// message it asked to show once history around it comes.
    var foundFrom: (buffer: String, place: MessageTarget, words: String)?
    var jumpTarget: (buffer: String, seq: Int64, term: String)?
    /// Our edits, redactions and reactions not yet acknowledged, by id: applied at their `ack`.
    var sentChanges: [String: (buffer: String, message: ChatMessage)] = [:]
    /// The nick is being asked for (none given, an invalid one, or refused by the server).
    var awaitingNick = false
    let trust: ServerTrust
    /// The server's certificate is unknown: the next line typed answers whether to trust it.
    var awaitingTrust: String?
    /// The person asked to quit while messages were pending; the next Ctrl-C quits at once.
    var quitRequested = false
    /// `/quit MESSAGE`: told to the rooms as the session ends.
    var quitMessage: String?
    var lastTitle = ""
    var status: Int32 = 0
    var exitMessage: String?
    /// Where this run keeps its peer id and unfinished transfers (held while it runs).
    var slot: SessionSlot?

    init(options: ClientOptions) throws {
        self.options = options
        ignoring = IgnoreSetting(options: options)
        smartFilter = SmartFilter(isOn: options.smartFilter)
        loop = try EventLoop()
        keys = TerminalKeys(loop: loop)
        terminal.output = TerminalWriter(loop: loop)
        let nick = options.nick ?? ""
        trust = try ServerTrust(options: options)
        // The rooms of the last run are joined again, after those asked for (not with --room).
        rememberedRooms = nick.isEmpty || options.roomsGiven ? nil : RememberedRooms(options: options, nick: nick)
        inputHistory = InputHistoryFile(options: options)
        editor.restoreHistory(inputHistory.read())
        let rooms = RememberedRooms.joining(options.rooms, rememberedRooms?.read() ?? [])
        session = try ClientConnection.open(options, nick: nick, rooms: rooms, trust: trust, on: loop)
        // A person at the screen waits for a server that is down, as after a loss (issue 24, defect 7).
        session.firstConnectionPatience = SessionCore.forever
        model = ChatViewModel(serverName: "\(options.host):\(options.port)", nick: nick)
        model.utcOffsetSeconds = localUTCOffset()
        let colors = options.colors && (getenv("NO_COLOR").map { $0.pointee == 0 } ?? true)
        renderer = Renderer(options: RenderOptions(colors: colors, utcOffsetSeconds: localUTCOffset(), now: unixMilliseconds(),
                                                   timestamp: TimestampFormat(options.timestampFormat ?? TimestampFormat.minutes.pattern)))
        highlights = HighlightMatcher(nick: nick, words: options.highlightWords)
        let server = options.serverKey
        privateMessages = PrivateMessageStore(root: options.paths.privateMessageDirectory, server: server)
        log = options.logs ? RoomLog(root: options.paths.logDirectory, server: server, utcOffsetSeconds: localUTCOffset()) : nil
        roomToShow = options.rooms.first
        terminal.output?.onDrained = { [unowned self] in needsRender = true }
        keys.onKey = { [unowned self] key in handle(key) }
        keys.onKeysHandled = { [unowned self] in needsRender = true }
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
        session.files.onEvent = { [unowned self] event in
            transferred(event)
            needsRender = true
        }
        TransferMemory.giveBack(after: session.files)
        session.onMembersChanged = { [unowned self] room in
            let info = session.members.info(of: room)
            guard model.roomIndex(named: room) != nil || !info.members.isEmpty else { return }
            model.setMembers(info.members, in: room)
            model.setRoomInfo(topic: info.topic, modes: info.modes, operators: info.operators, identified: info.identified, in: room)
        }
        try loop.handleSignals([SIGINT, SIGTERM, SIGWINCH, SIGHUP, SIGTSTP, SIGCONT]) { [unowned self] signal in
            switch signal {
            case SIGWINCH:
                needsRender = true
            case SIGTSTP:
                suspend()
            case SIGCONT:
                terminal.reassert()
                redrawAll()
            default:
                exitMessage = "chat-client: stopped by signal \(signal)"
                quitNow()
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
        // The rooms joined at start first on the bar, then the conversations open last time.
        for room in session.core.rooms.map(\.name) + session.outbox.waiting.compactMap({ $0.message.type == "join" ? $0.message.room : nil }) {
            model.openRoom(room)
        }
        reopenConversations()
        let problem: String? = options.nick.map { TypedName.nickProblem($0) } ?? "No nick was given (--nick, or nick = in the configuration)"
        if let problem {
            askForNick(because: problem)
        } else {
            try startSession(nick: session.nick)
        }
        updateTitle()
        scheduleStatusRefresh()
        loop.run()
        terminal.leave()
        if let exitMessage { Console.error(exitMessage) }
        return status
    }

    var currentRoomName: String { model.currentRoom?.name ?? options.rooms[0] }

    /// The room shown, when it is a room (not a private conversation).
    var currentChatRoom: String? {
        guard let room = model.currentRoom else { return options.rooms[0] }
        return room.isQuery || room.isView ? nil : room.name
    }

    // MARK: The nick

    func askForNick(because problem: String) {
        awaitingNick = true
        model.connection = .waiting("choose a nick")
        note("\(problem). Type the nick you want and press Enter.", in: currentRoomName)
    }

    /// A line typed while the nick is asked for.
    func chose(nick: String) {
        let wanted = String(nick.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        if let problem = TypedName.nickProblem(wanted) { return note("\(problem). Try another.", in: currentRoomName) }
        awaitingNick = false
        model.nick = wanted
        highlights.nick = wanted
        model.connection = .connecting
        if case .refused = session.state {
            session.retry(nick: wanted)
            return
        }
        do {
            try startSession(nick: wanted)
        } catch {
            exitMessage = "chat-client: \(error)"
            status = 1
            loop.stop()
        }
    }

    /// The first connection, as the peer this client's session slot keeps for `nick`.
    func startSession(nick: String) throws {
        slot = try KeptSession.start(session, options: options, nick: nick) { [unowned self] text in note(text, in: currentRoomName) }
    }

    // MARK: Drawing

    func render() {
        // A frame still on its way to a slow terminal is finished first: the next one is a diff
        // against it.
        guard needsRender, terminal.isActive, !terminal.isBacklogged else { return }
        needsRender = false
        keepDraftPerBuffer()
        let (columns, rows) = terminal.size
        let size = TerminalSize(columns: columns, rows: rows)
        let now = unixMilliseconds()
        model.removeExpiredTypists(now: now)
        renderer.options.now = now
        editor.scrollToCursor(width: renderer.inputWidth(for: model, size: size))
        let frame = renderer.render(model, editor: secretEntry == nil ? editor : secretEditor, size: size)
        terminal.write(FrameDiff.bytes(from: lastFrame, to: frame))
        lastFrame = frame
        updateTitle()
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

    /// Another buffer is shown (a key, a command, a join): what was typed stays with the buffer
    /// it was typed in, and the new one's draft comes back.
    func keepDraftPerBuffer() {
        let shown = model.currentRoom?.name
        guard shown != draftBuffer else { return }
        buffersSwitched(from: draftBuffer, to: shown)
        defer { draftBuffer = shown }
        // The first buffer (what was typed while connecting goes to it), or none left.
        guard let previous = draftBuffer, let shown else { return }
        let unsent = editor.unsentText
        drafts[previous] = unsent.isEmpty ? nil : unsent
        // Drafts of buffers closed meanwhile go.
        drafts = drafts.filter { name, _ in model.roomIndex(named: name) != nil }
        editor.showDraft(drafts.removeValue(forKey: shown) ?? "")
        stopTyping()
    }

    /// Ctrl-L, and after `fg`: the whole screen again, not a diff against what may be gone.
    func redrawAll() {
        lastFrame = nil
        lastTitle = ""
        terminal.write("\u{1B}[H\u{1B}[2J")
        needsRender = true
    }

    /// Ctrl-Z (raw mode makes it a key) or SIGTSTP: back to the shell until `fg`.
    func suspend() {
        stopTyping()
        terminal.suspend()
        redrawAll()
    }

    /// `qchat: nick@server`, with the count of highlights waiting in other rooms first.
    func updateTitle() {
        let waiting = model.totalHighlights
        let title = TextNeutralizer.singleLine.neutralize((waiting > 0 ? "(\(waiting)!) " : "") + "qchat: \(model.nick)@\(model.serverName)")
        guard title != lastTitle, terminal.isActive else { return }
        lastTitle = title
        terminal.setTitle(title)
    }

    /// A highlight or a private message arrived live: the bell, which terminals and tmux turn
    /// into the window's urgency or bell flag, and with `notify =` a desktop notification
    /// through the terminal saying who wrote what, where.
    func alert(_ line: ChatLine, in buffer: String) {
        if options.bell { terminal.ringBell() }
        guard let notification = options.notification else { return }
        let place = buffer.hasPrefix(ChatRoom.queryPrefix) ? " (private)" : " in #\(buffer)"
        terminal.write(notification.sequence(title: "qchat", body: line.nick + place + ": " + line.text, insideTmux: getenv("TMUX") != nil))
    }

    /// Refreshes the status bar's RTT once a second.
    private func scheduleStatusRefresh() {
        loop.schedule(at: .now() + .seconds(1)) { [unowned self] in
            if session.isConnected, let connection = session.connection {
                let rtt = Int(connection.statistics.smoothedRTT.milliseconds.rounded())
                if model.roundTripMilliseconds != rtt {
                    model.roundTripMilliseconds = rtt
                    needsRender = true
                }
            }
            scheduleStatusRefresh()
        }
    }

    // MARK: Ending

    /// Ctrl-C, Ctrl-D on an empty line, /quit: at once when everything was delivered; otherwise
    /// says how many messages are pending and quits once they are acknowledged, or at the next
    /// request (with status 1: something was not delivered).
    func requestQuit() {
        let pending = session.pendingMessages.count
        guard pending > 0, !quitRequested else {
            if pending > 0 {
                exitMessage = "chat-client: \(pending) message\(pending == 1 ? "" : "s") not delivered"
                status = 1
            }
            return quitNow()
        }
        quitRequested = true
        note("\(pending) message\(pending == 1 ? "" : "s") not delivered yet: quitting once delivered. Ctrl-C again quits now.",
             in: currentRoomName)
    }

    /// After an acknowledgement: a quit waiting for it can go ahead.
    func quitIfDelivered() {
        if quitRequested && session.pendingMessages.isEmpty { quitNow() }
    }

    func quitNow() {
        privateMessages.setOpenConversations(model.rooms.compactMap(\.queryNick))
        if session.isConnected, let quitMessage, !quitMessage.isEmpty {
            // The server closes and tells the rooms; the session says `stopped` then (at most 2 s).
            return session.quit(message: quitMessage)
        }
        if session.isConnected {
            session.quit()
            loop.schedule(at: .now() + .milliseconds(150)) { [unowned self] in loop.stop() }
        } else {
            session.quit()
            loop.stop()
        }
    }

    /// The status bar follows the connection; only a final ending closes the UI.
    private func changed(_ state: ResilientSession.State) {
        let several = session.servers.count > 1
        let server = several ? "any of \(options.serverList)" : "\(options.host):\(options.port)"
        switch state {
        case .connecting:
            model.connection = .connecting
        case .connected:
            model.connection = .connected
            model.serverName = session.serverName ?? model.serverName
            if several { note("connected to \(session.currentServer.label)", in: currentRoomName) }
        case .reconnecting(let attempt, let reason):
            model.connection = .reconnecting(attempt: attempt)
            if !session.everConnected {
                if attempt <= 1 || several {
                    note("\(reason); trying \(session.currentServer.label)\(attempt > 1 ? " (attempt \(attempt))" : "")", in: currentRoomName)
                } else if attempt == 2 {
                    note("waiting for \(server) to answer; trying again by itself", in: currentRoomName)
                }
            } else if attempt == 1 {
                note("connection lost (\(reason)); reconnecting\(several ? " to \(session.currentServer.label)" : "")", in: currentRoomName)
            }
        case .refused(let code, let text):
            askForNick(because: "\(several ? session.currentServer.label : server) refused the nick \(session.nick) (\(code): \(text))")
        case .stopped(let ending):
            model.connection = .disconnected(reason: ending.reason)
            switch ending.kind {
            case .quit:
                if quitMessage != nil { loop.schedule(at: .now() + .milliseconds(150)) { [unowned self] in loop.stop() } }
                return
            case .unreachable: exitMessage = "chat-client: could not reach \(server) (\(ending.reason))"
            case .untrusted: exitMessage = "chat-client: cannot trust \(server): \(ending.reason) (is --ca the CA that signed its certificate?)"
            case .certificateChanged(let pinned, let presented):
                exitMessage = trust.changedMessage(pinned: pinned, presented: presented, server: session.currentServer.spec)
            case .closed: exitMessage = "chat-client: connection closed: \(ending.reason)"
            }
            status = 1
            loop.stop()
        case .unknownServer(let fingerprint):
            unknownServer(fingerprint)
        }
    }
}
