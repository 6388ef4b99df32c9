import CLIOptions
import Glibc

/// What `chat-client` takes from its command line. The defaults reach `make run`'s server.
struct ClientOptions {
    static let usage = """
        usage: chat-client [--host H] [--port P] --nick NICK [--room ROOM] [--ca FILE | --insecure]
                           [--cert FILE --key FILE] [--plain] [--json]
          --host H        server (default 127.0.0.1)
          --port P        UDP port (default 4433)
          --nick NICK     the nick to ask for (the server may add a suffix)
          --room ROOM     room to join first (default lobby)
          --ca FILE       CA that signs the server certificate (default certs/ca.pem)
          --insecure      skip certificate verification (development only)
          --cert/--key    client certificate for servers that require one
          --plain         line mode: one input line per message or /command, one output line per event
          --json          line mode printing each event as one JSON object
        Commands: /join ROOM  /part [ROOM]  /msg NICK TEXT  /nick NEW  /away  /back  /history [N]  /quit  /help
        """

    var host = "127.0.0.1"
    var port: UInt16 = 4433
    var nick = ""
    var room = "lobby"
    var ca: String?
    var insecure = false
    var certificate: String?
    var key: String?
    var json = false
    var plain = false

    init(_ arguments: [String]) throws(UsageError) {
        let options = try Options(arguments, valued: ["host", "port", "nick", "room", "ca", "cert", "key"],
                                  flags: ["insecure", "plain", "json", "help"])
        if options.flag("help") { throw UsageError(ClientOptions.usage) }
        guard options.positional.isEmpty else { throw UsageError("unexpected argument '\(options.positional[0])'") }
        guard let nick = options.string("nick") else { throw UsageError("--nick is required") }
        self.nick = nick
        host = options.string("host", default: host)
        port = UInt16(try options.integer("port", default: 4433, in: 1...65535))
        room = options.string("room", default: room)
        insecure = options.flag("insecure")
        ca = options.string("ca") ?? (insecure ? nil : "certs/ca.pem")
        if let ca, access(ca, R_OK) != 0 { throw UsageError("cannot read CA file \(ca) (run 'make certs' or pass --ca)") }
        certificate = options.string("cert")
        key = options.string("key")
        if (certificate == nil) != (key == nil) { throw UsageError("--cert and --key go together") }
        json = options.flag("json")
        plain = options.flag("plain")
    }
}
