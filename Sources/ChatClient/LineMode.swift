import CLIOptions
import ChatClientKit
import ChatProtocol
import ChatTUI
import Glibc
import QuicIO

/// The scriptable client: each input line is a message to the current room or a /command; each
/// event is printed as a timestamped line (or one JSON object with --json), our own messages
/// once the server acknowledged them. Input may be a terminal, a pipe, a regular file or
/// /dev/null. At the end of input (or /quit) it waits until everything asked for is answered,
/// then quits: status 0, or 1 if something was never acknowledged or the connection failed.
///
/// Its parts, by concern: reading input (`LineMode+Input`), carrying out commands through the
/// shared table (`LineMode+Commands`), printing events (`LineMode+Output`), the connection's
/// states, trust on first use and ending (`LineMode+Connection`).
final class LineMode {
    /// Input is read no further while this many requests wait to be sent (a long file is paced
    /// by the flood limit, and memory stays bounded); reading resumes below ``resumeBelow``.
    static let pauseAbove = 200
    static let resumeBelow = 50
    /// Quitting gives up when nothing has been answered for this long.
    static let stallTimeout = TimeSpan.seconds(60)

    let options: ClientOptions
    let loop: EventLoop
    let session: ResilientSession
    var formatter: PlainFormatter
    var currentRoom: String
    var inputEnded = false
    var inputPaused = false
    var inputIsPolled = false
    var pending: [UInt8] = []
    /// Our messages by id until their `ack`, to echo them.
    var sent: [String: ChatMessage] = [:]
    var lastProgress = MonotonicTime.now()
    var settleTimer: LoopTimerID?
    var status: Int32 = 0
    /// The next input line is a password for this (`/register`, `/login NICK`, `/password`): it is
    /// read with echo off from a terminal, never printed, never sent as a message.
    var awaitedSecret: SecretPurpose?
    var echo: EchoSuppression?
    let trust: ServerTrust
    /// The server's certificate is unknown: the next input line answers whether to trust it.
    var awaitedTrust: String?
    /// Input is not read before the server's certificate is trusted or asked about.
    var inputHeld = false
    /// Where this run keeps its peer id and unfinished transfers (held while it runs).
    var slot: SessionSlot?
    var hasBeenConnected = false
    /// The `welcome`, printed after the replay that comes with it.
    var heldWelcome: ChatMessage?
    /// Who is ignored (`/ignore`): not printed in plain line mode (`--json` prints everything).
    var ignoring: IgnoreSetting
    var smartFilter: SmartFilter
    var repeatedMessages = RepeatedMessages()
    /// `/away REASON`: the reason, and who was told it.
    var awayReason: String?
    var awayReplies = AwayReplies()
    /// What `/transfers` lists of the transfers that ended.
    var transferHistory = TransferHistory()
    /// The lines printed last (at most ``printedLimit``), for `/lastlog`.
    var printed: [String] = []
    static let printedLimit = 2_000
    /// The local day of the lines printed last: a line of another day is preceded by a day line.
    var shownDay: Int64
    /// `/quit MESSAGE`: told to the rooms as the session ends.
    var quitMessage: String?
    /// Rooms whose `/who` waits for the member list (a room just joined).
    var pendingWho: Set<String> = []
    /// The messages printed, by number, for `/edit N` and the like; our changes until their `ack`.
    var seenMessages = SeenMessages()
    var sentChanges: [String: ChatMessage] = [:]
    /// Lines from one that needs the server's features (`/edit`, `/search`...) on, typed before
    /// the first `welcome`: carried out once it comes (input is read no further meanwhile).
    var linesAwaitingWelcome: [String]?

    init(options: ClientOptions) throws {
        self.options = options
        currentRoom = options.rooms[0]
        ignoring = IgnoreSetting(options: options)
        smartFilter = SmartFilter(isOn: options.smartFilter)
        guard let nick = options.nick else { throw UsageError("--nick is required (or nick = NAME in \(options.paths.configurationFile))") }
        if let problem = TypedName.nickProblem(nick) { throw UsageError(problem) }
        formatter = PlainFormatter(timestamp: TimestampFormat(options.timestampFormat ?? TimestampFormat.seconds.pattern),
                                   utcOffsetSeconds: localUTCOffset())
        shownDay = TimestampFormat.day(of: unixMilliseconds(), utcOffsetSeconds: formatter.utcOffsetSeconds)
        loop = try EventLoop()
        trust = try ServerTrust(options: options)
        session = try ClientConnection.open(options, nick: nick, trust: trust, on: loop)
        // A server down at start ends the run, as a script expects, unless --wait says how long to wait for it.
        if options.waitGiven { session.firstConnectionPatience = options.waitSeconds == 0 ? SessionCore.forever : .seconds(UInt64(options.waitSeconds)) }
        session.onMessage = { [unowned self] message, _ in received(message) }
        session.onProblem = { problem in Console.error("chat-client: \(problem)") }
        session.onState = { [unowned self] state in changed(state) }
        session.onMembersChanged = { [unowned self] room in membersKnown(in: room) }
        session.files.onEvent = { [unowned self] event in transferred(event) }
        TransferMemory.giveBack(after: session.files)
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
