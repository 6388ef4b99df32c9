import CLIOptions
import ChatClientKit
import ChatProtocol
import ChatTUI
import Glibc
import QuicEngine

/// The scriptable client: each input line is a message to the current room or a /command; each
/// event is printed as a timestamped line (or one JSON object with --json), our own messages
/// once the server acknowledged them. Input may be a terminal, a pipe, a regular file or
/// /dev/null. At the end of input (or /quit) it waits until everything asked for is answered,
/// then quits: status 0, or 1 if something was never acknowledged or the connection failed.
final class LineMode {
    /// Input is read no further while this many requests wait to be sent (a long file is paced
    /// by the flood limit, and memory stays bounded); reading resumes below ``resumeBelow``.
    static let pauseAbove = 200
    static let resumeBelow = 50
    /// Quitting gives up when nothing has been answered for this long.
    static let stallTimeout = QuicDuration.seconds(60)

    private let options: ClientOptions
    private let loop: EventLoop
    private let session: ResilientSession
    private let formatter: PlainFormatter
    private var currentRoom: String
    private var inputEnded = false
    private var inputPaused = false
    private var inputIsPolled = false
    private var pending: [UInt8] = []
    /// Our messages by id until their `ack`, to echo them.
    private var sent: [String: ChatMessage] = [:]
    private var lastProgress = QuicTime.now()
    private var settleTimer: LoopTimerID?
    private(set) var status: Int32 = 0
    /// The next input line is a password for this (`/register`, `/login NICK`, `/password`): it is
    /// read with echo off from a terminal, never printed, never sent as a message.
    private var awaitedSecret: SecretPurpose?
    private var echo: EchoSuppression?
    /// Shared files seen, by the number their line shows (`/get N`).
    private var sharedFiles = SharedFiles()
    private let trust: ServerTrust
    /// The server's certificate is unknown: the next input line answers whether to trust it.
    private var awaitedTrust: String?
    /// Input is not read before the server's certificate is trusted or asked about.
    private var inputHeld = false
    /// Where this run keeps its peer id and unfinished transfers (held while it runs).
    private var slot: SessionSlot?

    enum SecretPurpose {
        case register
        case login(String)
        case changePassword
    }

    init(options: ClientOptions) throws {
        self.options = options
        currentRoom = options.rooms[0]
        guard let nick = options.nick else { throw UsageError("--nick is required (or nick = NAME in \(options.paths.configurationFile))") }
        if let problem = ClientOptions.nickProblem(nick) { throw UsageError(problem) }
        formatter = PlainFormatter(timestamp: TimestampFormat(options.timestampFormat ?? TimestampFormat.seconds.pattern),
                                   utcOffsetSeconds: localUTCOffset())
        loop = try EventLoop()
        trust = try ServerTrust(options: options)
        session = try ClientConnection.open(options, nick: nick, trust: trust, on: loop)
        session.onMessage = { [unowned self] message, _ in received(message) }
        session.onProblem = { problem in Console.error("chat-client: \(problem)") }
        session.onState = { [unowned self] state in changed(state) }
        session.files.onEvent = { [unowned self] event in transferred(event) }
        try loop.handleSignals([SIGINT, SIGTERM]) { [unowned self] _ in stop() }
        // A server that may be unknown is asked about first, and the first line read answers:
        // until then no line is read, so a script's lines are never taken for the answer.
        if session.servers.contains(where: { $0.policy == .firstUse }) && !options.trustOnFirstUse {
            inputHeld = true
        } else {
            watchInput()
        }
    }

    func run() throws -> Int32 {
        slot = try KeptSession.start(session, options: options, nick: session.nick) { [unowned self] note in complain(note) }
        loop.run()
        return status
    }

    // MARK: Input

    private func watchInput() {
        let flags = fcntl(0, F_GETFL)
        _ = fcntl(0, F_SETFL, flags | O_NONBLOCK)
        do {
            try loop.watchReadable(0) { [unowned self] in readInput() }
        } catch {
            // epoll takes no regular files (nor /dev/null): they are always readable, so they
            // are read on the loop's own turns instead.
            inputIsPolled = true
            loop.schedule(at: .now()) { [unowned self] in pollInput() }
        }
    }

    private func pollInput() {
        guard !inputEnded, !inputPaused else { return }
        readInput()
        if !inputEnded && !inputPaused { loop.schedule(at: .now()) { [unowned self] in pollInput() } }
    }

    private func readInput() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = read(0, &buffer, buffer.count)
        if count < 0 && (errno == EAGAIN || errno == EINTR) { return }
        if count <= 0 {
            if count < 0 { Console.error("chat-client: cannot read standard input: \(String(cString: strerror(errno)))") }
            if !inputIsPolled { loop.unwatch(0) }
            if !pending.isEmpty { command(String(decoding: pending, as: UTF8.self)) }
            pending.removeAll()
            endOfInput()
            return
        }
        pending += buffer[..<count]
        while !inputEnded, let newline = pending.firstIndex(of: 10) {
            let line = String(decoding: pending[..<newline], as: UTF8.self)
            pending.removeSubrange(...newline)
            command(line)
        }
        if inputEnded {
            // /quit: what follows it is not read.
            if !inputIsPolled { loop.unwatch(0) }
            pending.removeAll()
            return
        }
        pauseInputIfBusy()
    }

    /// Backpressure: a script faster than the flood limit waits here, not in memory.
    private func pauseInputIfBusy() {
        guard !inputEnded, !inputPaused, session.outbox.waiting.count > Self.pauseAbove else { return }
        inputPaused = true
        if !inputIsPolled { loop.unwatch(0) }
        resumeWhenDrained()
    }

    private func resumeWhenDrained() {
        loop.schedule(at: .now() + .milliseconds(100)) { [unowned self] in
            guard session.outbox.waiting.count < Self.resumeBelow else { return resumeWhenDrained() }
            inputPaused = false
            if inputIsPolled {
                pollInput()
            } else {
                try? loop.watchReadable(0) { [unowned self] in readInput() }
            }
        }
    }

    private func command(_ line: String) {
        let text = line.hasSuffix("\r") ? String(line.dropLast()) : line
        if let purpose = awaitedSecret { return secretEntered(text, for: purpose) }
        if let fingerprint = awaitedTrust { return answered(trust: text, fingerprint) }
        guard !text.isEmpty else { return }
        switch ClientCommand(parsing: text) {
        case .say(let words):
            for piece in MessageSplitter.split(words) { sendMessage(.msg(room: currentRoom, text: piece, id: ChatSession.randomPeerID())) }
        case .action(let action):
            sendMessage(.msg(room: currentRoom, text: ChatAction.text(for: action), id: ChatSession.randomPeerID()))
        case .privateMessage(let nick, let words), .query(let nick, .some(let words)):
            for piece in MessageSplitter.split(words) { sendMessage(.dm(to: nick, text: piece, id: ChatSession.randomPeerID())) }
        case .join(let typed):
            guard let room = room(typed) else { return }
            currentRoom = room
            request(.join(room: room))
        case .part(let typed):
            guard let room = typed.map(room) ?? currentRoom else { return }
            request(.part(room: room))
        case .nick(let nick):
            if let problem = ClientOptions.nickProblem(nick) { return complain(problem) }
            request(.nick(nick))
        case .away:
            session.setStatus("away")
        case .back:
            session.setStatus("online")
        case .history(let count):
            request(.history(room: currentRoom, limit: count))
        case .who:
            let members = session.members.members(of: currentRoom)
            show(formatter.note("#\(formatter.single(currentRoom)) members: \(members.map(formatter.single).joined(separator: " "))",
                                at: unixMilliseconds()))
        case .help(let name):
            showHelp(name)
        case .quit:
            endOfInput()
        case .usage(let name):
            complain("usage: \(ClientCommand.description(of: name)?.usage ?? "/" + name)")
        case .unknown(let name):
            complain("unknown command \(name), /help lists them")
        case .send(let nick, let path):
            do {
                let number = try session.files.upload(path, room: nick == nil ? currentRoom : nil, to: nick)
                started(number, "sending \(path) as [transfer \(number)]")
            } catch {
                status = 1
                complain("cannot send \(path): \(error)")
            }
        case .get(let number, let folder):
            guard let shared = sharedFiles[number] else { return complain("there is no shared file \(number)") }
            let target = folder ?? ClientPaths.downloadFolder()
            ClientPaths.makeDirectory(target)
            do {
                let transfer = try session.files.download(shared, into: target)
                started(transfer, "getting \(formatter.single(shared.text)) as [transfer \(transfer)]")
            } catch {
                status = 1
                complain("cannot download into \(target): \(error)")
            }
        case .cancel(let number):
            if !session.files.cancel(number) { complain("there is no transfer \(number)") }
        case .query, .close, .clear, .search, .buffer:
            complain("\(text.split(separator: " ").first ?? "") works in the full-screen client only")
        case .register:
            askForSecret(.register, prompt: "password for the account \(session.nick): ")
        case .login(let name):
            if let problem = ClientOptions.nickProblem(name) { return complain(problem) }
            askForSecret(.login(name), prompt: "password of \(name): ")
        case .password:
            askForSecret(.changePassword, prompt: "new password: ")
        default:
            moderate(ClientCommand(parsing: text))
        }
    }

    // MARK: Accounts and moderation

    private func askForSecret(_ purpose: SecretPurpose, prompt: String) {
        awaitedSecret = purpose
        let suppression = EchoSuppression.begin()
        echo = suppression
        if suppression.isTerminal { Console.error(prompt, newline: false) }
    }

    private func secretEntered(_ password: String, for purpose: SecretPurpose) {
        awaitedSecret = nil
        echo?.end()
        if echo?.isTerminal == true { Console.error("") }
        echo = nil
        guard ChatValidation.isAcceptablePassword(password) else { return complain("a password is 8 to 256 bytes; nothing was sent") }
        switch purpose {
        case .register: request(.register(password: password))
        case .login(let name): request(.login(account: name, password: password))
        case .changePassword: request(.changePassword(password))
        }
    }

    /// The moderation commands, in the current room (or server-wide with -server).
    private func moderate(_ command: ClientCommand) {
        let info = session.members.info(of: currentRoom)
        switch command {
        case .certificate(let add): request(.certificate(add: add))
        case .claim: request(.claim(room: currentRoom))
        case .topic(nil):
            show(formatter.note("#\(formatter.single(currentRoom)) topic: \(formatter.single(info.topic ?? "(none)"))", at: unixMilliseconds()))
        case .topic(let text?): request(.topic(room: currentRoom, text: text))
        case .kick(let nick, let reason, let server): request(.kick(room: server ? nil : currentRoom, nick: nick, reason: reason))
        case .ban(let target, let reason, let server): request(.ban(room: server ? nil : currentRoom, target: target, reason: reason))
        case .unban(let target, let server): request(.unban(room: server ? nil : currentRoom, target: target))
        case .op(let name): request(.op(room: currentRoom, account: name))
        case .deop(let name): request(.deop(room: currentRoom, account: name))
        case .mode(nil):
            let modes = info.modes.isEmpty ? "(none)" : info.modes.map { "+" + $0 }.joined(separator: " ")
            show(formatter.note("#\(formatter.single(currentRoom)) modes: \(modes)", at: unixMilliseconds()))
        case .mode(let change?):
            guard RoomModeChange(change) != nil else { return complain("a mode is +invite, -invite, +registered or -registered") }
            request(.mode(room: currentRoom, change))
        case .invite(let nick): request(.invite(room: currentRoom, nick: nick))
        case .rooms: request(.listRooms())
        case .whois(let nick): request(.whois(nick))
        default: break
        }
    }

    private func room(_ typed: String) -> String? {
        do {
            return try ClientOptions.room(typed)
        } catch {
            complain(error.message)
            return nil
        }
    }

    private func sendMessage(_ message: ChatMessage) {
        guard request(message), let id = message.id else { return }
        sent[id] = message
    }

    @discardableResult
    private func request(_ message: ChatMessage) -> Bool {
        guard session.send(message) else {
            complain("too much waiting to be sent (\(Outbox.capacity) requests); not sent: \(message.password == nil ? message.text : message.type)")
            return false
        }
        return true
    }

    private func complain(_ text: String) {
        Console.error("chat-client: \(text)")
    }

    private func showHelp(_ name: String?) {
        if let name {
            guard let description = ClientCommand.description(of: name) else { return complain("no command /\(name)") }
            show(formatter.note("\(description.usage): \(description.summary)", at: unixMilliseconds()))
            return
        }
        for description in ClientCommand.descriptions where !Self.fullScreenOnly.contains(description.name) {
            show(formatter.note("\(description.usage): \(description.summary)", at: unixMilliseconds()))
        }
    }

    static let fullScreenOnly: Set<String> = ["query", "close", "clear", "search", "buffer"]

    // MARK: Output

    private func received(_ message: ChatMessage) {
        lastProgress = .now()
        if options.json { Console.line(String(decoding: message.withoutPeer.encodedDatagram(), as: UTF8.self)) }
        var isExplained = false
        if message.messageType == .ack || message.messageType == .error, let id = message.id, let own = sent.removeValue(forKey: id) {
            if message.messageType == .ack {
                if !options.json { show(formatter.ownLines(for: own, nick: session.nick, at: message.ts ?? unixMilliseconds())) }
            } else {
                status = 1
                complain("not sent (\(message.code ?? "error"): \(message.text)): \(own.text)")
                isExplained = true
            }
        }
        if message.messageType == .file, message.file != nil {
            let number = sharedFiles.number(for: message)
            if !options.json { show(formatter.fileLines(for: message, number: number, now: unixMilliseconds())) }
            isExplained = true
        }
        if !options.json && !isExplained { show(formatter.lines(for: message, now: unixMilliseconds())) }
        if inputEnded { settle() }
    }

    /// Transfers report on standard error: progress, the end, a failure (then status 1); with
    /// `--json`, as objects on standard output (``TransferEventJSON``).
    private func transferred(_ event: FileTransfers.Event) {
        lastProgress = .now()
        if case .failed = event { status = 1 }
        if options.json {
            Console.line(TransferEventJSON.line(event, now: .now()))
        } else {
            complain(transferText(event))
        }
        if inputEnded { settle() }
    }

    private func transferText(_ event: FileTransfers.Event) -> String {
        switch event {
        case .progress(let transfer):
            return "[transfer \(transfer.number)] \(formatter.single(transfer.name)) \(transfer.progressText(now: .now()))"
        case .resumed(let transfer):
            return "[transfer \(transfer.number)] resuming \(formatter.single(transfer.name)) from \(FileTransfer.bytes(transfer.done))"
        case .finished(let transfer, _):
            switch transfer.direction {
            case .upload: return "[transfer \(transfer.number)] sent \(formatter.single(transfer.name)) (\(FileTransfer.bytes(transfer.size)))"
            case .download(_, let destination): return "[transfer \(transfer.number)] saved \(destination) (SHA-256 checked)"
            }
        case .failed(let transfer, let reason):
            return "[transfer \(transfer.number)] \(formatter.single(transfer.name)) failed: \(formatter.single(reason))"
        case .cancelled(let transfer):
            return "[transfer \(transfer.number)] \(formatter.single(transfer.name)) cancelled"
        case .hashed(let transfer):
            return "[transfer \(transfer.number)] \(formatter.single(transfer.name)) hashed (SHA-256 \(transfer.sha256)), sending"
        case .restored(let transfer):
            return "[transfer \(transfer.number)] \(transfer.isUpload ? "sending" : "getting") \(formatter.single(transfer.name)) again: "
                + "left unfinished by the last run"
        case .abandoned(let transfer, let reason):
            return "\(formatter.single(transfer.name)), left unfinished by the last run, cannot go on: \(formatter.single(reason))"
        }
    }

    /// `/send` and `/get` accepted a transfer.
    private func started(_ number: Int, _ text: String) {
        guard options.json else { return complain(text) }
        if let transfer = session.files.transfers[number] { Console.line(TransferEventJSON.started(transfer)) }
    }

    private func show(_ lines: [String]) {
        for line in lines { Console.line(line) }
    }

    // MARK: Ending

    private func endOfInput() {
        guard !inputEnded else { return }
        inputEnded = true
        if awaitedTrust != nil {
            awaitedTrust = nil
            return giveUp("chat-client: not trusted (no answer: the input ended); nothing was sent to \(ServerTrust.name(session.currentServer.spec))")
        }
        lastProgress = .now()
        settle()
    }

    /// Quits once everything asked for is answered, or when nothing has moved for a minute.
    private func settle() {
        if let settleTimer { loop.cancel(settleTimer) }
        settleTimer = nil
        if session.isSettled && session.files.transfers.isEmpty { return stop() }
        if QuicTime.now() - lastProgress >= Self.stallTimeout {
            let count = session.pendingMessages.count
            if count > 0 { complain("\(count) message(s) never acknowledged") }
            status = 1
            return stop()
        }
        settleTimer = loop.schedule(at: .now() + .milliseconds(200)) { [unowned self] in settle() }
    }

    private func stop() {
        guard session.isConnected else { return loop.stop() }
        session.quit()
        loop.schedule(at: .now() + .milliseconds(100)) { [unowned self] in loop.stop() }
    }

    private func changed(_ state: ResilientSession.State) {
        lastProgress = .now()
        let several = session.servers.count > 1
        let server = several ? "any of \(options.serverList)" : "\(options.host):\(options.port)"
        let next = several ? " to \(session.currentServer.label)" : ""
        switch state {
        case .reconnecting(_, let reason) where !session.everConnected:
            complain("\(reason); trying\(next)")
        case .reconnecting(attempt: 1, let reason):
            complain("connection lost (\(reason)); reconnecting\(next)")
        case .reconnecting(let attempt, let reason):
            complain("reconnect attempt \(attempt - 1) failed (\(reason)); trying again\(next)")
        case .connected:
            if hasBeenConnected {
                complain("reconnected\(next)")
            } else if several {
                complain("connected\(next)")
            }
            hasBeenConnected = true
            releaseInput()
            if inputEnded { settle() }
        case .refused(let code, let text):
            complain("\(several ? session.currentServer.label : server) refused the nick or room (\(code)): \(text)")
            status = 1
            stop()
        case .stopped(let ending):
            switch ending.kind {
            case .quit: return
            case .unreachable: complain("could not reach \(server) (\(ending.reason))")
            case .untrusted: complain("cannot trust \(server): \(ending.reason) (is --ca the CA that signed its certificate?)")
            case .certificateChanged(let pinned, let presented):
                Console.error(trust.changedMessage(pinned: pinned, presented: presented, server: session.currentServer.spec))
            case .closed: complain("connection closed: \(ending.reason)")
            }
            status = 1
            loop.stop()
        case .unknownServer(let fingerprint):
            unknownServer(fingerprint)
        case .connecting:
            break
        }
    }

    private var hasBeenConnected = false

    // MARK: Trust on first use

    /// Asked on stderr; the next line of input answers (`yes` trusts). `--trust-on-first-use`
    /// answers by itself.
    private func unknownServer(_ fingerprint: String) {
        if options.trustOnFirstUse {
            if let refusal = trust.refusalWithoutAsking(fingerprint, server: session.currentServer.spec) { return giveUp("chat-client: \(refusal)") }
            return trusted(fingerprint)
        }
        for line in trust.question(for: fingerprint, server: session.currentServer.spec) { Console.error("chat-client: \(line)") }
        awaitedTrust = fingerprint
        releaseInput()
    }

    private func releaseInput() {
        guard inputHeld else { return }
        inputHeld = false
        watchInput()
    }

    private func answered(trust answer: String, _ fingerprint: String) {
        awaitedTrust = nil
        guard ServerTrust.isYes(answer) else { return giveUp("chat-client: not trusted; nothing was sent to \(ServerTrust.name(session.currentServer.spec))") }
        trusted(fingerprint)
    }

    private func trusted(_ fingerprint: String) {
        Console.error("chat-client: \(trust.accept(fingerprint, for: session.currentServer.spec))")
        session.trust(fingerprint: fingerprint)
    }

    private func giveUp(_ message: String) {
        Console.error(message)
        status = 1
        session.quit()
        loop.stop()
    }
}

/// The local time zone's offset from UTC now, in seconds.
func localUTCOffset() -> Int {
    var now = time(nil)
    var local = tm()
    localtime_r(&now, &local)
    return local.tm_gmtoff
}

/// Wall-clock Unix milliseconds, as `ts` fields carry.
func unixMilliseconds() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec / 1_000_000)
}
