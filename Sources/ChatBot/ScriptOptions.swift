import CLIOptions

/// `chat-bot script FILE|- [--verbose] [connection flags]`.
struct ScriptOptions {
    static let usage = """
        usage: chat-bot script FILE|- [--verbose] [--host H] [--port P | --server HOST:PORT ...] [--ca FILE | --insecure]
          FILE            the bot script (README, "Bot scripts"); - reads standard input
          --verbose       print every event each bot receives on standard output, one JSON line each
        \(ConnectionOptions.usage)
        \(ConnectionOptions.serverUsage)
        Exit status: 0 the script completed, 1 an expectation (or a join) failed, 2 a bad script.
        """

    var path: String
    var verbose: Bool
    var connection: ConnectionOptions

    init(_ arguments: [String]) throws(UsageError) {
        let options = try Options(arguments, valued: ConnectionOptions.valuedFlags.union(ConnectionOptions.serverFlag),
                                  flags: ConnectionOptions.switchFlags.union(["verbose", "help"]))
        if options.flag("help") { throw UsageError(ScriptOptions.usage) }
        guard options.positional.count == 1 else { throw UsageError("expected one script file (or -)\n" + ScriptOptions.usage) }
        path = options.positional[0]
        verbose = options.flag("verbose")
        connection = try ConnectionOptions(options)
    }

    /// How messages name the script.
    var source: String { path == "-" ? "<stdin>" : path }
}
