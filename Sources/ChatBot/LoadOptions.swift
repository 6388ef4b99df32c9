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
          --arrivals A         intended send times: uniform (default) or poisson
          --seed N             seed of the poisson schedule (default 1)
          --connect-parallel N handshakes in flight while connecting (default 100)
          --connect-timeout S  give up connecting the first clients after S seconds (default 60)
          --drain S            seconds to wait for outstanding deliveries after the run (default 5)
          --json FILE          also write the report as JSON
          --nick-prefix P      nicks are P0, P1, ... (default load)
          --room-prefix P      rooms are P0, P1, ... (default load)
        \(ConnectionOptions.usage)
        Senders take turns (round-robin over the clients); each message's latency is measured at every
        receiver from its intended send time. The server's default flood limits (burst 20, 5/s per
        client) and typing limit (2/s) stop a load test: run chat-server with --flood-burst,
        --flood-rate and --typing-rate raised; rate-limited replies are counted separately.
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

    init(_ arguments: [String]) throws(UsageError) {
        let options = try Options(
            arguments,
            valued: ConnectionOptions.valuedFlags.union([
                "clients", "rooms", "rate", "size", "typing", "duration", "warmup", "churn", "arrivals", "seed",
                "connect-parallel", "connect-timeout", "drain", "json", "nick-prefix", "room-prefix",
            ]),
            flags: ConnectionOptions.switchFlags.union(["help", "typing-on-stream"]))
        if options.flag("help") { throw UsageError(LoadOptions.usage) }
        guard options.positional.isEmpty else { throw UsageError("unexpected argument '\(options.positional[0])'") }
        typingOnStream = options.flag("typing-on-stream")
        clients = try options.integer("clients", default: clients, in: 1...1_000_000)
        rooms = try options.integer("rooms", default: rooms, in: 1...clients)
        rate = try options.double("rate", default: rate, in: 0...10_000_000)
        size = try options.integer("size", default: size, in: 1...4096)
        typingRate = try options.double("typing", default: typingRate, in: 0...10_000_000)
        duration = try options.double("duration", default: duration, in: 0.1...86_400)
        warmup = try options.double("warmup", default: warmup, in: 0...86_400)
        churn = try options.double("churn", default: churn, in: 0...100_000)
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
        connection = try ConnectionOptions(options)
    }
}
