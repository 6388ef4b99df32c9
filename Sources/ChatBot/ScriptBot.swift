import ChatClientKit
import ChatProtocol
import QuicIO

/// One bot of a running script: its session, where it is in its commands and what it waits for.
/// Lives on the event-loop thread, like its session. A lost connection moves it to the next server
/// (ScriptBot+Moving.swift) unless `--no-move`.
final class ScriptBot {
    enum Phase { case connecting, ready, running, done, closing }

    /// What keeps the bot from running its next command.
    enum Blocker {
        case sleeping
        case joining(String)
        case parting(String)
        case expecting(ScriptExpectation)
        /// `quit` waits until the server has acknowledged every message sent.
        case acknowledgements
        /// `upload` and `download` wait for their transfer to end.
        case transferring(Int)
    }

    /// A transfer may take this long before the run fails.
    static let transferTimeoutMilliseconds: UInt64 = 600_000

    static let joinTimeoutMilliseconds: UInt64 = 10_000
    static let inboxLimit = 1000

    let definition: ScriptBotDefinition
    /// The connection now (a new one after each move).
    var session: ChatSession
    /// The peer id of every connection of the bot.
    let peer: String
    var phase = Phase.connecting
    unowned let runner: ScriptRunner
    private var cursor: ProgramCursor
    var blocker: Blocker?
    var blockerLine = 0
    private var blockerTimer: LoopTimerID?
    /// Messages received and not yet taken by an `expect`, oldest first.
    var inbox: [ChatMessage] = []
    /// `msg` and `dm` sent and not yet acknowledged, oldest first: sent again after a move.
    var unacknowledged: [ChatMessage] = []
    /// `unavailable` answers per message id: it is sent again with its id after a backoff, at
    /// most ``unavailableAttempts`` times (docs/PROTOCOL.md section 10).
    var unavailableAnswers: [String: Int] = [:]
    static let unavailableAttempts = 12
    /// Messages the server refused for good (id → the error's code) that no `expect error` has
    /// taken: the bot fails when it ends with any (nothing refused is dropped silently).
    var refused: [String: String] = [:]
    /// Rooms in the order they were joined; the last is where `say` and `typing` go.
    var rooms: [String] = []
    /// The last seq of each room the bot has had: the `since` of its re-joins after a move.
    var lastSeq: [String: Int64] = [:]
    /// Per room, the newest `msg` or `file` seen and the bot's own newest acknowledged `msg`: what
    /// the targets `last` and `mine` of section 15's commands name.
    var newestMessageSeq: [String: Int64] = [:]
    var ownMessageSeq: [String: Int64] = [:]
    /// While the bot is between connections: what its move needs (ScriptBot+Moving.swift).
    var move: Move?
    /// Rooms re-joined after a move whose replay has not ended, with the `since` asked: a replayed
    /// event above it is one the bot missed while away.
    var resuming: [String: Int64] = [:]
    /// The servers the bot uses, from server N mod count for bot N, and the backoff of its moves.
    var rotation: ServerRotation
    /// How long the bot may take to come back after a lost connection (`--move-timeout`); nil
    /// with `--no-move`: a lost connection fails the run.
    let moveTimeoutMilliseconds: UInt64?
    /// The nick the server assigned on the last connection, kept across a move.
    var assignedNick: String?
    var random = SystemRandomNumberGenerator()
    /// Uploads and downloads on file streams; they start once the bot is in its first room.
    let files = FileTransfers()
    /// The newest file shared with the bot, for `download`.
    var lastSharedFile: ChatMessage?
    /// SHA-256 of the files this bot uploaded, by path, with the size and modification time they
    /// had when hashed: an `upload` of the same unchanged file in a `repeat` starts at once.
    var uploadDigests: [String: (stamp: FileStamp, sha256: String)] = [:]
    /// The password the bot last logged in, registered or changed with: a `password` request
    /// carries it as the current one (`old`).
    private var knownPassword: String?

    init(definition: ScriptBotDefinition, session: ChatSession, rotation: ServerRotation, moveTimeoutMilliseconds: UInt64?,
         runner: ScriptRunner) {
        self.definition = definition
        self.session = session
        peer = session.peer
        self.rotation = rotation
        self.moveTimeoutMilliseconds = moveTimeoutMilliseconds
        self.runner = runner
        cursor = ProgramCursor(definition.commands)
        attach(session)
        files.onEvent = { [unowned self] event in transferred(event) }
    }

    /// Makes `session` the bot's connection: what it receives and its end are the bot's (those of
    /// a connection it had before are not).
    func attach(_ session: ChatSession) {
        self.session = session
        session.onMessage = { [unowned self, unowned session] message, _ in
            if session === self.session { receive(message) }
        }
        session.onProblem = { [unowned runner, name = definition.name] problem in runner.note("\(name): \(problem)") }
        session.onClose = { [unowned self, unowned session] reason in
            if session === self.session { closed(reason) }
        }
        session.onFileStreamEvent = { [unowned self, unowned session] event in
            if session === self.session { files.handle(event) }
        }
    }

    var nick: String { session.assignedNick ?? assignedNick ?? definition.name }
    var currentRoom: String { rooms.last ?? definition.room }

    /// Runs the commands once every bot of the script is in its first room.
    func start() {
        phase = .running
        advance()
    }

    /// Runs commands until one has to wait (or, while the bot moves, until it is back). Yields to
    /// the loop now and then, so a long run of commands that never wait cannot starve the other bots.
    func advance() {
        for _ in 0..<64 {
            guard phase == .running, blocker == nil, move == nil else { return }
            guard let command = cursor.next() else {
                phase = .done
                runner.botFinished(self)
                return
            }
            execute(command)
        }
        runner.loop.schedule(at: .now()) { [unowned self] in advance() }
    }

    private func execute(_ command: ScriptCommand) {
        switch command.action {
        case .join(let room):
            session.send(.join(room: room))
            block(.joining(room), line: command.line, milliseconds: ScriptBot.joinTimeoutMilliseconds) { [unowned self] in
                runner.fail(ScriptFailure(line: command.line, bot: definition.name,
                                          message: "did not join \(room) within \(DurationRange.format(ScriptBot.joinTimeoutMilliseconds))"))
            }
        case .part(let room):
            let room = room ?? currentRoom
            session.send(.part(room: room))
            block(.parting(room), line: command.line, milliseconds: ScriptBot.joinTimeoutMilliseconds) { [unowned self] in
                runner.fail(ScriptFailure(line: command.line, bot: definition.name, message: "did not leave \(room)"))
            }
        case .say(let text):
            sendTracked(.msg(room: currentRoom, text: text, id: ChatSession.randomPeerID()))
        case .sendRaw(let bytes):
            session.sendRaw(bytes + [10])
        case .directMessage(let recipient, let text):
            sendTracked(.dm(to: runner.nick(for: recipient), text: text, id: ChatSession.randomPeerID()))
        case .request(let request):
            var message = request.message(currentRoom: currentRoom) { [unowned runner] in runner.nick(for: $0) }
            if message.messageType == .password { message.old = knownPassword ?? definition.password }
            if [.register, .login, .password].contains(message.messageType), let password = message.password { knownPassword = password }
            session.send(message)
        case .typing(let typing):
            if !session.sendTyping(room: currentRoom, typing: typing) {
                runner.note("\(definition.name) line \(command.line): typing not sent (the server takes no datagrams)")
            }
        case .wait(let duration):
            block(.sleeping, line: command.line, milliseconds: duration.pick(using: &random)) { [unowned self] in unblock() }
        case .expect(let expectation):
            expect(expectation, line: command.line)
        case .quit:
            quitWhenAcknowledged(line: command.line)
        case .upload(let path, let randomBytes, let recipient):
            upload(path: path, randomBytes: randomBytes, to: recipient.map { runner.nick(for: $0) }, line: command.line)
        case .download(let folder):
            download(into: folder, line: command.line)
        case .refer(let reference):
            refer(reference, line: command.line)
        case .search(let text):
            session.send(ChatMessage(type: MessageType.search.rawValue, text: text, room: currentRoom))
        case .repeatBlock:
            break  // entered by the cursor, never returned by it
        }
    }

    /// Section 15's request about the message `reference` names in the current room; the run fails
    /// when the bot has seen no such message there.
    private func refer(_ reference: ScriptReference, line: Int) {
        let room = currentRoom
        let seq: Int64? = switch reference.target {
        case .last: newestMessageSeq[room]
        case .mine: ownMessageSeq[room]
        case .seq(let seq): seq
        }
        guard let seq else {
            let which = reference.target == .mine ? "no message of its own" : "no message"
            return runner.fail(ScriptFailure(line: line, bot: definition.name, message: "\(reference.verb.rawValue): \(which) in \(room) yet"))
        }
        let message = reference.message(room: room, seq: seq, id: ChatSession.randomPeerID())
        if reference.isAcknowledged { sendTracked(message) } else { session.send(message) }
    }

    private func sendTracked(_ message: ChatMessage) {
        unacknowledged.append(message)
        session.send(message)
    }

    // MARK: Waiting

    func block(_ reason: Blocker, line: Int, milliseconds: UInt64, onTimeout: @escaping () -> Void) {
        blocker = reason
        blockerLine = line
        blockerTimer = runner.loop.schedule(at: .now() + .milliseconds(milliseconds)) { [unowned self] in
            blockerTimer = nil
            onTimeout()
        }
    }

    /// The awaited event happened (or the wait is over): on to the next command.
    func unblock() {
        if let blockerTimer { runner.loop.cancel(blockerTimer) }
        blockerTimer = nil
        blocker = nil
        if phase == .running { advance() }
    }

    // MARK: Ending

    /// `quit`, or the end of the script: closes once every message sent is acknowledged, so
    /// the close cannot drop them (a bot that is moving closes once it is back and they are).
    func quitWhenAcknowledged(line: Int, again: Bool = false) {
        guard session.isOpen || move != nil, phase != .closing else { return }
        if unacknowledged.isEmpty { return close() }
        if again, let blockerTimer {
            runner.loop.cancel(blockerTimer)
            self.blockerTimer = nil
        }
        if phase == .running || phase == .done {
            block(.acknowledgements, line: line, milliseconds: 5000) { [unowned self] in
                runner.fail(ScriptFailure(line: line, bot: definition.name,
                                          message: "\(unacknowledged.count) message(s) not acknowledged by the server within 5s"))
            }
        }
    }

    /// Closes with NO_ERROR (a move stops); the bot has finished, unless the server refused a
    /// message of it that no `expect error` took: then the run fails.
    func close() {
        if let (id, code) = refused.min(by: { $0.key < $1.key }) {
            refused = [:]
            runner.fail(ScriptFailure(line: blockerLine, bot: definition.name,
                                      message: "the server refused a message (\(code), id \(id)): it was not stored"))
            return
        }
        let wasRunning = phase == .running
        phase = .closing
        if let blockerTimer { runner.loop.cancel(blockerTimer) }
        blocker = nil
        endMove()
        session.quit()
        if wasRunning { runner.botFinished(self) }
    }

    /// The connection ended without the bot closing it: when its server or path went away it
    /// moves, or before it was in its first room tries the next server; anything else (a server
    /// that closed it for what it did, KICKED, BANNED, `--no-move`) fails the run.
    private func closed(_ reason: QuicCloseReason) {
        guard phase != .closing else { return }
        if moveTimeoutMilliseconds != nil, ConnectionLoss(reason) == .transient {
            return phase == .connecting ? retryFirstConnection(after: reason) : moveAway(after: reason)
        }
        failClosed(reason)
    }

    /// Fails the run naming the line the bot was at.
    func failClosed(_ reason: QuicCloseReason, detail: String = "") {
        let line = blocker == nil ? definition.line : blockerLine
        runner.fail(ScriptFailure(line: line, bot: definition.name, message: "connection closed: \(reason)\(detail)"))
    }
}
