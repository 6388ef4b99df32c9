import EventRuntime

extension ProxyConfiguration {
    /// Parses `udp-impair`'s flags (without the program name). Every flag must be known, so a
    /// misspelt impairment fails loudly instead of silently testing a perfect network.
    public init(arguments: [String]) throws(ImpairmentError) {
        var listen: SocketAddress?
        var server: SocketAddress?
        var seed: UInt64?
        var settings: [ImpairmentSetting] = []
        var blackholes: [BlackholeWindow] = []
        var rebindInterval: TimeSpan?
        var rebindChangesAddress = false
        var exitWhenInputCloses = false

        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--"), argument.count > 2 else {
                throw .invalidArgument("unexpected argument '\(argument)' (see --help)")
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            switch name {
            case "rebind-address", "exit-on-stdin-close":
                guard inlineValue == nil else { throw .invalidArgument("--\(name) takes no value") }
                if name == "rebind-address" { rebindChangesAddress = true } else { exitWhenInputCloses = true }
                continue
            default:
                break
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count else { throw .invalidArgument("--\(name) needs a value") }
                value = arguments[index]
                index += 1
            }
            switch name {
            case "listen": listen = try SocketAddress(parsing: value)
            case "server": server = try SocketAddress(parsing: value)
            case "seed":
                guard let parsed = UInt64(value) else { throw .invalidArgument("--seed must be a whole number ≥ 0, not '\(value)'") }
                seed = parsed
            case "blackhole": blackholes.append(try ValueParser.blackholeWindow(value))
            case "rebind-every":
                let interval = try ValueParser.duration(value)
                guard interval > .zero else { throw .invalidArgument("--rebind-every must be longer than 0") }
                rebindInterval = interval
            default:
                guard let setting = ImpairmentSetting(option: name, value: value) else {
                    throw .invalidArgument("unknown option --\(name) (see --help)")
                }
                settings.append(setting)
            }
        }
        guard let server else { throw .invalidArgument("--server HOST:PORT is required (see --help)") }
        self.init(serverAddress: server, seed: seed ?? ProxyConfiguration.unpredictableSeed())
        if let listen { listenAddress = listen }
        for setting in settings { try setting.apply(up: &up, down: &down) }
        self.blackholes = blackholes
        self.rebindInterval = rebindInterval
        self.rebindChangesAddress = rebindChangesAddress
        self.exitWhenInputCloses = exitWhenInputCloses
        if rebindChangesAddress && !server.isLoopback {
            throw .invalidArgument("--rebind-address cycles 127.0.0.x source addresses, so --server must be a loopback address")
        }
    }

    /// Without --seed a run still has a seed, reported in the statistics so it can be replayed.
    private static func unpredictableSeed() -> UInt64 {
        var generator = SystemRandomNumberGenerator()
        return generator.next() >> 1
    }

    public static let usage = """
        usage: udp-impair --server HOST:PORT [--listen HOST:PORT] [options]

        Relays UDP between clients and one server, impairing packets on the way. Each client
        address gets its own upstream socket. Prints `READY <port>` once listening, one JSON
        statistics line for the `stats` command and at exit (SIGINT, SIGTERM, `quit`).

          --listen HOST:PORT        where clients send (default 127.0.0.1:0, 0 = a free port)
          --server HOST:PORT        the server to relay to (required; IPv4)
          --seed N                  random seed, for reproducible runs (default: random, shown in stats)

        Impairments: --NAME applies to both directions, --up-NAME to client→server only,
        --down-NAME to server→client only. Changeable live with the stdin command `[up-|down-]NAME VALUE`.
          loss P                    drop probability (0.05 or 5%)
          delay D                   fixed one-way delay (units: us, ms, s, m: 40ms, 1.5s)
          jitter D                  add a uniform random [-D, +D] to each delay (reorders if large)
          reorder P                 probability a packet is held back by reorder-delay
          reorder-delay D           extra delay of held-back packets (default 10ms)
          duplicate P               probability a packet is sent twice
          corrupt P                 probability a packet has corrupt-bits random bits flipped
          corrupt-bits N            bits flipped per corrupted packet (default 1)
          bandwidth RATE            bottleneck rate: bytes/s, or 250kB, 2MB, 500kbit, 10Mbit (0 = unlimited)
          queue BYTES               bottleneck queue, tail-dropped beyond (default 100 ms of rate, ≥ 16 KiB)

        Outages and rebinding:
          --blackhole START+DUR     drop everything both ways in this window after start (repeatable): 5s+5s
          --rebind-every D          give every client a new upstream source port every D
          --rebind-address          scheduled rebinds also change the source IP (127.0.0.2, .3, ...)
          --exit-on-stdin-close     stop (printing stats) when stdin reaches end of file
          --version                 the version, then exit

        Commands on stdin, one per line, each answered with one line (OK ..., ERROR ..., or JSON):
          stats | rebind [CLIENT] | rebind-address [CLIENT] | blackhole D | [up-|down-]NAME VALUE | quit | help
        """
}
