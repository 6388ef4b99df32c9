import CLIOptions
import ChatClientKit
import ChatProtocol
import Glibc
import QuicIO

/// Runs a script: connects every bot on one event loop and one driver, starts them together once
/// all are in their first room, and ends with 0 (done), 1 (a failure naming its line) or 130
/// (interrupted).
final class ScriptRunner {
    static let connectTimeoutMilliseconds: UInt64 = 10_000

    let loop: EventLoop
    private let pool: ChatSessionPool
    /// Every address of every `--server`: bot N (in the script's order) connects to server N mod
    /// their count.
    private let servers: [ServerAddress]
    private let script: Script
    private let source: String
    private let verbose: Bool
    /// How long a bot may take to come back after a lost connection; nil: it does not move
    /// (`--no-move`), the run fails.
    private let moveTimeoutMilliseconds: UInt64?
    private var bots: [ScriptBot] = []
    private var readyCount = 0
    private var finishedCount = 0
    private var ending = false
    private var connectTimer: LoopTimerID?
    private(set) var status: Int32 = 0

    /// `source` names the script in messages (its path, or `<stdin>`).
    init(script: Script, source: String, connection: ConnectionOptions, verbose: Bool, moves: UInt64? = 30_000) throws {
        self.script = script
        self.source = source
        self.verbose = verbose
        moveTimeoutMilliseconds = moves
        loop = try EventLoop()
        pool = try connection.makePool(on: loop)
        servers = try connection.resolvedServers()
        try loop.handleSignals([SIGINT, SIGTERM]) { [unowned self] _ in end(status: 130) }
    }

    func run() -> Int32 {
        do {
            for (index, definition) in script.bots.enumerated() {
                let rotation = ServerRotation(servers: servers, startingAt: index)
                let session = try pool.connect(nick: definition.name, room: definition.room, to: rotation.current)
                session.helloPassword = definition.password
                bots.append(ScriptBot(definition: definition, session: session, rotation: rotation,
                                      moveTimeoutMilliseconds: moveTimeoutMilliseconds, runner: self))
            }
        } catch {
            Console.error("chat-bot: cannot connect: \(error)")
            return 1
        }
        connectTimer = loop.schedule(at: .now() + .milliseconds(ScriptRunner.connectTimeoutMilliseconds)) { [unowned self] in
            guard let late = bots.first(where: { $0.phase == .connecting }) else { return }
            fail(ScriptFailure(line: late.definition.line, bot: late.definition.name,
                               message: "did not join \(late.definition.room) within "
                                   + "\(DurationRange.format(ScriptRunner.connectTimeoutMilliseconds)) (is a server running?)"))
        }
        loop.run()
        return status
    }

    // MARK: From the bots

    func botReady(_ bot: ScriptBot) {
        readyCount += 1
        guard readyCount == bots.count else { return }
        if let connectTimer { loop.cancel(connectTimer) }
        for bot in bots { bot.start() }
    }

    func botFinished(_ bot: ScriptBot) {
        finishedCount += 1
        guard finishedCount == bots.count, status == 0 else { return }
        // Bots that ran out of commands stayed connected for the others; now everyone leaves.
        for bot in bots { bot.quitWhenAcknowledged(line: bot.definition.line) }
        end(status: 0)
    }

    /// A new connection for a bot that moves, as the same peer.
    func connect(nick: String, peer: String, room: String, since: Int64?, to server: ServerAddress) throws -> ChatSession {
        try pool.connect(nick: nick, peer: peer, room: room, since: since, to: server)
    }

    /// The first failure is reported and ends the run; it also overrides a clean end that is
    /// still waiting for acknowledgements.
    func fail(_ failure: ScriptFailure) {
        guard status == 0 else { return }
        Console.error("chat-bot: \(source) line \(failure.line): \(failure.bot): \(failure.message)")
        status = 1
        for bot in bots where bot.isLive { bot.close() }
        end(status: 1)
    }

    /// The nick of the bot a script calls `name`, as the server assigned it; other names as given.
    func nick(for name: String) -> String {
        bots.first { ChatValidation.nickKey($0.definition.name) == ChatValidation.nickKey(name) }?.nick ?? name
    }

    /// Something worth knowing that does not fail the run (a server error, a refused datagram).
    func note(_ text: String) {
        Console.error("chat-bot: \(text)")
    }

    /// With --verbose, every event as one line: the bot, then the message as JSON (which
    /// escapes control characters, so nothing received can drive the terminal).
    func trace(_ bot: ScriptBot, _ message: ChatMessage) {
        guard verbose else { return }
        Console.line("\(bot.definition.name) \(String(decoding: message.encodedDatagram(), as: UTF8.self))")
    }

    // MARK: Ending

    private func end(status: Int32) {
        if status != 0, self.status == 0 {
            self.status = status
            for bot in bots where bot.isLive { bot.close() }
        }
        guard !ending else { return }
        ending = true
        stopWhenClosed(deadline: .now() + .seconds(6))
    }

    /// Stops once every bot has closed (acknowledgements can take a moment), then one more short
    /// spell so the CONNECTION_CLOSE packets leave.
    private func stopWhenClosed(deadline: MonotonicTime) {
        let settled = bots.allSatisfy { !$0.isLive || $0.phase == .closing }
        if settled || MonotonicTime.now() >= deadline {
            loop.schedule(at: .now() + .milliseconds(100)) { [unowned self] in loop.stop() }
            return
        }
        loop.schedule(at: .now() + .milliseconds(20)) { [unowned self] in stopWhenClosed(deadline: deadline) }
    }
}
