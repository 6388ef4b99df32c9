import CLIOptions

/// `chat-bot script FILE|- [--verbose] [connection flags]`.
struct ScriptOptions {
    static let usage = """
        usage: chat-bot script FILE|- [--verbose] [--no-move | --move-timeout S] [--host H] [--port P | --server HOST:PORT ...] [--ca FILE | --insecure]
          FILE            the bot script (README, "Bot scripts"); - reads standard input
          --verbose       print every event each bot receives on standard output, one JSON line each
          --no-move       a bot whose connection is lost fails the run (by default one whose server or path went
                          away moves to the next server, or the same one, resumes, and goes on with its script)
          --move-timeout S  a bot not back within S seconds of losing its connection fails the run (default 30)
        \(ConnectionOptions.usage)
        \(ConnectionOptions.serverUsage)
        Exit status: 0 the script completed, 1 an expectation (or a join) failed or a bot's connection was closed
        (and it was not back within --move-timeout), 2 a bad script.
        """

    var path: String
    var verbose: Bool
    /// Bots move after a lost connection (false: `--no-move`), and must be back within this long.
    var moves: Bool
    var moveTimeoutMilliseconds: UInt64 = 30_000
    var connection: ConnectionOptions

    init(_ arguments: [String]) throws(UsageError) {
        let options = try Options(arguments, valued: ConnectionOptions.valuedFlags.union(ConnectionOptions.serverFlag).union(["move-timeout"]),
                                  flags: ConnectionOptions.switchFlags.union(["verbose", "no-move", "help"]))
        if options.flag("help") { throw UsageError(ScriptOptions.usage) }
        guard options.positional.count == 1 else { throw UsageError("expected one script file (or -)\n" + ScriptOptions.usage) }
        path = options.positional[0]
        verbose = options.flag("verbose")
        moves = !options.flag("no-move")
        if options.string("move-timeout") != nil, !moves { throw UsageError("--move-timeout is for bots that move: not with --no-move") }
        moveTimeoutMilliseconds = UInt64(try options.double("move-timeout", default: 30, in: 1...3600) * 1000)
        connection = try ConnectionOptions(options)
    }

    /// How messages name the script.
    var source: String { path == "-" ? "<stdin>" : path }
}
