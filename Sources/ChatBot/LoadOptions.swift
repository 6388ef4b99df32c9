import CLIOptions

/// `chat-bot load`: the shape of the load and where to report it.
struct LoadOptions {
    static let usage = """
        usage: chat-bot load [--clients N] [--rooms R] [--rate MSGS_PER_S] [--size BYTES] [--typing PER_S]
                             [--duration S] [--warmup S] [--churn CONNECTS_PER_S] [--json FILE] [options]
          --clients N          connections, all on one event loop (default 20)
          --rooms R            rooms <room-prefix>0..R-1; client i joins room i mod R (default 1)
          --rate M             room messages a second, all clients together (default 100; 0 sends none)
          --size BYTES         text bytes per message, at least its ~25-byte header (default 100)
          --typing T           typing datagrams a second, all clients together (default 0)
          --typing-on-stream   clients take no datagrams: typing goes on the presence stream both ways
          --duration S         measured seconds (default 10)
          --warmup S           seconds of load before measuring starts (default 2)
          --churn C            clients replaced a second (part, quit, reconnect, join) during the run (default 0)
          --file-size BYTES    with --file-rate: each transfer uploads this many random bytes (1000, 64k, 5M, 1G)
          --file-rate F        uploads started a second, clients taking turns, the first at the start (default 0)
          --arrivals A         intended send times: uniform (default) or poisson
          --seed N             seed of the poisson schedule (default 1)
          --connect-parallel N handshakes in flight while connecting (default 100)
          --connect-timeout S  give up connecting the first clients after S seconds (default 60)
          --drain S            seconds to wait for outstanding deliveries (and uploads) after the run (default 5)
          --json FILE          also write the report as JSON
          --nick-prefix P      nicks are P0, P1, ... (default load)
          --room-prefix P      rooms are P0, P1, ... (default load)
          --no-move            a client whose connection is lost counts as closed unexpectedly (by default one
                               whose server or path went away moves to the next server, or the same one, and resumes)
        \(ConnectionOptions.usage)
        \(ConnectionOptions.serverUsage)
        Senders take turns (round-robin over the clients); each message's latency is measured at every
        receiver from its intended send time. The server's default flood limits (burst 20, 5/s per
        client) and typing limit (2/s) stop a load test: run chat-server with --flood-burst,
        --flood-rate and --typing-rate raised; rate-limited replies are counted separately.
        Exit status: 0 when every client connected and nothing was lost, doubled or reordered; else 1.
        """

    /// The text of a PRIVMSG, so that the relayed line (with the sender's `nick!user@host` and the
    /// channel in front) stays within IRC's 512 bytes.
    static let maximumIRCSize = 400

    static let ircUsage = """
        usage: chat-bot irc-load [--clients N] [--rooms R] [--rate MSGS_PER_S] [--size BYTES]
                                 [--duration S] [--warmup S] [--json FILE] [options]
          --clients N          IRC connections over TLS over TCP, all on one event loop (default 20)
          --rooms R            channels #<room-prefix>0..R-1; client i joins channel i mod R (default 1)
          --rate M             PRIVMSGs a second, all clients together (default 100; 0 sends none)
          --size BYTES         text bytes per message, at least its ~25-byte header, at most \(maximumIRCSize) (default 100)
          --duration S         measured seconds (default 10)
          --warmup S           seconds of load before measuring starts (default 2)
          --arrivals A         intended send times: uniform (default) or poisson
          --seed N             seed of the poisson schedule (default 1)
          --connect-parallel N connections registering at once (default 100)
          --connect-timeout S  give up connecting the first clients after S seconds (default 60)
          --drain S            seconds to wait for outstanding deliveries after the run (default 5)
          --json FILE          also write the report as JSON (the keys of chat-bot load's)
          --nick-prefix P      nicks are P0, P1, ... (default load)
          --room-prefix P      channels are #P0, #P1, ... (default load)
          --host H             server (default 127.0.0.1)
          --port P             TCP port of its TLS listener (default 6697)
          --ca FILE            CA that signs the server certificate (default certs/ca.pem)
          --insecure           skip certificate verification (development only)
        The same open-loop schedule, latency histogram and report as chat-bot load. Each client
        registers asking for the IRCv3 capabilities echo-message, message-tags and server-time; the
        server's echo of a sender's own PRIVMSG is its acknowledgement, counted apart from the
        deliveries to the other members. The server's flood limits must be off (see scripts/bench-irc.sh).
        Exit status: 0 when every client connected and nothing was lost, doubled or reordered; else 1.
        """

    var clients = 20
    var rooms = 1
    var rate = 100.0
    var size = 100
    var typingRate = 0.0
    var duration = 10.0
    var warmup = 2.0
    var churn = 0.0
    /// File uploads during the run (PROTOCOL.md section 9): their size and how many start a second.
    var fileSize: Int64 = 0
    var fileRate = 0.0
    var arrivals = OpenLoopSchedule.Arrivals.uniform
    var seed: UInt64 = 1
    var connectParallel = 100
    var connectTimeout = 60.0
    var drain = 5.0
    var jsonPath: String?
    var nickPrefix = "load"
    var roomPrefix = "load"
    var connection: ConnectionOptions
    /// Typing on the presence stream instead of datagrams (the head-of-line comparison).
    var typingOnStream = false
    /// `chat-bot irc-load`'s options (no typing, churn or rate-limited replies to report).
    var irc = false
    /// A client whose connection is lost moves (not with `--no-move`, nor in `irc-load`).
    var moves = true

    /// The flags both `load` and `irc-load` take.
    private static let sharedFlags: Set<String> = [
        "clients", "rooms", "rate", "size", "duration", "warmup", "arrivals", "seed",
        "connect-parallel", "connect-timeout", "drain", "json", "nick-prefix", "room-prefix", "host", "port", "ca",
    ]

    /// `irc` parses `chat-bot irc-load`'s flags: no typing, churn or QUIC handshake timeout, the
    /// TCP port 6697 by default, and text that fits an IRC line.
    init(_ arguments: [String], irc: Bool = false) throws(UsageError) {
        let options = try Options(
            arguments,
            valued: irc ? LoadOptions.sharedFlags : ConnectionOptions.valuedFlags.union(ConnectionOptions.serverFlag).union(LoadOptions.sharedFlags)
                .union(["typing", "churn", "file-size", "file-rate"]),
            flags: ConnectionOptions.switchFlags.union(irc ? ["help"] : ["help", "typing-on-stream", "no-move"]))
        if options.flag("help") { throw UsageError(irc ? LoadOptions.ircUsage : LoadOptions.usage) }
        guard options.positional.isEmpty else { throw UsageError("unexpected argument '\(options.positional[0])'") }
        self.irc = irc
        typingOnStream = options.flag("typing-on-stream")
        moves = !irc && !options.flag("no-move")
        clients = try options.integer("clients", default: clients, in: 1...1_000_000)
        rooms = try options.integer("rooms", default: rooms, in: 1...clients)
        rate = try options.double("rate", default: rate, in: 0...10_000_000)
        size = try options.integer("size", default: size, in: 1...(irc ? LoadOptions.maximumIRCSize : 4096))
        typingRate = try options.double("typing", default: typingRate, in: 0...10_000_000)
        duration = try options.double("duration", default: duration, in: 0.1...86_400)
        warmup = try options.double("warmup", default: warmup, in: 0...86_400)
        churn = try options.double("churn", default: churn, in: 0...100_000)
        if let text = options.string("file-size") {
            guard let size = ScriptParser.byteCount(text), size <= 1 << 40 else {
                throw UsageError("--file-size must be a byte count such as 1000, 64k, 5M or 1G, not '\(text)'")
            }
            fileSize = size
        }
        fileRate = try options.double("file-rate", default: fileRate, in: 0...1000)
        if let name = options.string("arrivals") {
            guard let parsed = OpenLoopSchedule.Arrivals(rawValue: name) else {
                throw UsageError("--arrivals must be uniform or poisson, not '\(name)'")
            }
            arrivals = parsed
        }
        seed = UInt64(try options.integer("seed", default: 1, in: 0...Int.max))
        connectParallel = try options.integer("connect-parallel", default: connectParallel, in: 1...100_000)
        connectTimeout = try options.double("connect-timeout", default: connectTimeout, in: 1...3600)
        drain = try options.double("drain", default: drain, in: 0...600)
        jsonPath = options.string("json")
        nickPrefix = options.string("nick-prefix", default: nickPrefix)
        roomPrefix = options.string("room-prefix", default: roomPrefix)
        connection = try ConnectionOptions(options, defaultPort: irc ? 6697 : 4433)
    }
}
