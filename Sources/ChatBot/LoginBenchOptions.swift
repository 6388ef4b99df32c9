import CLIOptions

/// `chat-bot logins`: what logging in costs the server (PROTOCOL.md section 7), per path.
struct LoginBenchOptions {
    static let usage = """
        usage: chat-bot logins [--clients N] [--rounds R] [--server-pid PID] [--password P] [--prefix NAME] [options]
          --clients N     accounts registered first, then logging in all at once each round (default 100)
          --rounds R      bursts per path (default 3)
          --server-pid P  the server's process id: its CPU time (/proc/P/stat, all threads) is read around
                          each burst (without it, only the time to the last welcome is reported)
          --password P    the accounts' password (default: a fixed 20-character one)
          --prefix NAME   nick prefix of the accounts (default lb plus 4 random hex digits)
          --paths LIST    which bursts, comma-separated: guest, certificate, password (default all three)
          --existing      the accounts NAME0... exist already with --password (a run before): register none;
                          the certificate path then needs no identity of that run, so it is not allowed
        \(ConnectionOptions.usage)
        Registers N accounts (each with a password and a certificate bound), then, R times per path, connects
        N clients at once that say hello as guests (the baseline), logged in by certificate, or logged in by
        password, and reports the time until the last welcome and the server's CPU time per connection.
        """

    var clients = 100
    var rounds = 3
    var serverPID: Int32?
    var password = "login-bench-password"
    var prefix: String
    var paths: [LoginBench.Path] = LoginBench.Path.allCases
    var existing = false
    var connection: ConnectionOptions

    init(_ arguments: [String]) throws(UsageError) {
        let options = try Options(arguments,
                                  valued: ConnectionOptions.valuedFlags.union(["clients", "rounds", "server-pid", "password", "prefix", "paths"]),
                                  flags: ConnectionOptions.switchFlags.union(["help", "existing"]))
        if options.flag("help") { throw UsageError(LoginBenchOptions.usage) }
        guard options.positional.isEmpty else { throw UsageError("unexpected argument '\(options.positional[0])'") }
        clients = try options.integer("clients", default: clients, in: 1...10_000)
        rounds = try options.integer("rounds", default: rounds, in: 1...100)
        if options.string("server-pid") != nil { serverPID = Int32(try options.integer("server-pid", default: 0, in: 1...Int(Int32.max))) }
        password = options.string("password", default: password)
        guard (8...256).contains(password.utf8.count) else { throw UsageError("--password must be 8 to 256 bytes") }
        prefix = options.string("prefix") ?? "lb" + String(UInt16.random(in: 0...UInt16.max), radix: 16)
        guard prefix.count <= 16, prefix.first?.isLetter == true else { throw UsageError("--prefix must start with a letter, at most 16 characters") }
        if let list = options.string("paths") {
            paths = try list.split(separator: ",").map { name throws(UsageError) in
                guard let path = LoginBench.Path(rawValue: String(name)) else { throw UsageError("--paths takes guest, certificate, password") }
                return path
            }
        }
        existing = options.flag("existing")
        if existing && paths.contains(.certificate) { throw UsageError("--existing cannot measure the certificate path (--paths guest,password)") }
        connection = try ConnectionOptions(options)
    }
}
