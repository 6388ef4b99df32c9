import CLIOptions
import ChatClientKit
import ChatProtocol
import ChatTUI
import Digest
import Glibc
import QuicEngine

/// What `chat-client` takes from its command line and its configuration file
/// (`$XDG_CONFIG_HOME/qchat/client.conf`); a flag wins over the file. The defaults reach
/// `make run`'s server.
struct ClientOptions: ServerListOptions {
    static var version: String { ProgramVersion.line(program: "chat-client", libraries: QuicLibraryVersions.all) }
    static let usage = """
        usage: chat-client [--host H] [--port P | --server HOST:PORT ... | --server NAME] [--nick NICK] [--room ROOM ...]
                           [--ca FILE | --insecure | --trust-on-first-use]
                           [--identity FILE | --no-identity | --cert FILE --key FILE] [--plain] [--json]
                           [--config FILE] [--logs] [--no-color]
               chat-client --discover [--wait S] [--plain | --json]
          --host H          server (default 127.0.0.1)
          --port P          UDP port (default 4433)
          --discover        list the qchat servers on the local network (DNS-SD _qchat._udp through
                            avahi-daemon) as they appear and go, and pick one to connect to; line mode
                            prints one line per server for --wait seconds (0: until interrupted)
          --server HOST:PORT  a server, repeatable instead of --host and --port: HOST a DNS name, an IPv4
                            address or an IPv6 address in brackets ([::1]:4433); a name with several
                            addresses counts as several servers. They are tried in order; a lost
                            connection moves to the next (the nodes of one chat system)
          --server NAME     connect to the server advertised on the local network as NAME (a value that
                            is not HOST:PORT is a name)
          --wait S          how long --server and --discover look before saying nothing was found
                            (default 5); in line mode also how long a server that does not answer
                            at start is tried again (0: for ever; without --wait it is tried once).
                            The full-screen UI waits for it for ever
          --nick NICK       the nick to ask for (the server may add a suffix); the full-screen UI asks
                            for one when it is missing or invalid
          --room ROOM       a room to join at start, repeatable (default lobby); a leading # is dropped
          --ca FILE         CA that signs the server certificate (default: the first of
                            $XDG_CONFIG_HOME/qchat/ca.pem, certs/ca.pem, certs/ca.pem next to the
                            installation, share/qchat/ca.pem beside its bin/)
          --insecure        skip certificate verification (development only)
          --trust-on-first-use  a server no CA signs and known_servers does not list is trusted
                            without asking (scripts) and added to $XDG_CONFIG_HOME/qchat/known_servers;
                            without it the person is asked once. A changed certificate is always refused
          --identity FILE   this device's identity (key and self-signed certificate, made on first start;
                            default $XDG_CONFIG_HOME/qchat/identity.pem): after /register it logs you in
          --no-identity     present no certificate (log in with /login and the password)
          --cert/--key      a CA-signed client certificate instead, for servers that require one
          --plain           line mode: one input line per message or /command, one output line per event
          --json            line mode printing each event as one JSON object
          --timestamp FMT   timestamp format (%H %M %S %d %m %y %Y %%; '' for none); default %H:%M,
                            %H:%M:%S in line mode
          --config FILE     configuration file (default $XDG_CONFIG_HOME/qchat/client.conf)
          --logs            write each room to $XDG_STATE_HOME/qchat/logs/, one file per room and day
          --no-color        no colours (so does NO_COLOR)
          --version, -h/--help
        Configuration file: key = value lines, # comments; keys host, port, server (HOST:PORT, comma-separated
        and repeatable: the lines add up), nick, rooms (comma-separated),
        ca, cert, key, identity, highlight (comma-separated words), timestamp, colors (on/off), logs (on/off), bell (on/off),
        ignore (comma-separated nicks; /ignore and /unignore write it), smart-filter (on/off),
        notify (off, osc9 or osc777: a desktop notification through the terminal for mentions and private messages).
        Without --ca (or ca =), a server whose certificate no CA found by default signs is trusted on first
        use, like ssh: its SHA-256 fingerprint is shown, asked about once and kept in known_servers.
        Commands: type /help in the client.
        """

    /// `--help` or `--version`: printed on standard output, status 0.
    struct Information: Error { let text: String }

    static let settingKeys: Set<String> = ["host", "port", "server", "nick", "rooms", "ca", "cert", "key", "identity", "highlight", "timestamp",
                                           "colors", "logs", "bell", "ignore", "smart-filter", "notify"]

    /// The servers, in the order they are tried: `--server HOST:PORT` (repeatable) or `server =`,
    /// else `--host`/`--port` (`host =`/`port =`).
    var servers = [ServerSpec(host: "127.0.0.1", port: 4433)]
    /// As given; the modes check it (line mode refuses an invalid one, the full-screen UI asks).
    var nick: String?
    var rooms = [ChatLimits.defaultRoom]
    /// `--room` was given: the command line says which rooms, none are rejoined from the last run.
    var roomsGiven = false
    var ca: String?
    /// The CA was named (--ca or `ca =`): it alone decides, no trust on first use.
    var caRequired = false
    var insecure = false
    var trustOnFirstUse = false
    /// `--discover`: list (line mode) or pick (full screen) a server on the local network.
    var discover = false
    /// `--server NAME`: the DNS-SD instance to connect to.
    var serverName: String?
    /// Seconds `--server` and `--discover` look (0: `--discover` lists until interrupted).
    var waitSeconds = 5
    /// `--wait` was given: line mode waits that long for a server down at start.
    var waitGiven = false
    /// What the discovered server advertised as its certificate (`fp`), for the trust question.
    var advertisedFingerprint: String?
    /// The service name the server was chosen by on the local network (`--server NAME`, or picked
    /// with `--discover`): trust on first use follows it.
    var advertisedName: String?
    var certificate: String?
    var key: String?
    /// The identity file presented on every connection; nil with --no-identity or --cert.
    var identity: String?
    var json = false
    var plain = false
    var highlightWords: [String] = []
    /// Nicks whose messages and comings and goings are not shown (`ignore =`, `/ignore`).
    var ignored: [String] = []
    /// `smart-filter = on`: joins and parts of people quiet for 10 minutes are hidden.
    var smartFilter = false
    /// The configuration file `/ignore` writes to: the one named, else the default.
    var configurationPath: String
    /// nil: the mode's default.
    var timestampFormat: String?
    var colors = true
    var logs = false
    var bell = true
    /// `notify = osc9 | osc777`: desktop notifications for mentions and private messages.
    var notification: DesktopNotification?
    let paths: ClientPaths

    init(_ arguments: [String], paths: ClientPaths = ClientPaths()) throws {
        self.paths = paths
        configurationPath = paths.configurationFile
        if arguments.contains("-h") { throw Information(text: ClientOptions.usage) }
        let options = try Options(arguments, valued: ["host", "port", "nick", "room", "ca", "cert", "key", "config", "timestamp",
                                                                  "identity", "server", "wait"],
                                  flags: ["insecure", "plain", "json", "help", "version", "logs", "no-color", "no-identity",
                                          "trust-on-first-use", "discover"])
        if options.flag("help") { throw Information(text: ClientOptions.usage) }
        if options.flag("version") { throw Information(text: ClientOptions.version) }
        guard options.positional.isEmpty else { throw UsageError("unexpected argument '\(options.positional[0])'") }
        let file = try Self.settings(named: options.string("config"), paths: paths)

        let onCommandLine = !options.strings("server").isEmpty || options.string("host") != nil || options.string("port") != nil
        if !onCommandLine, file?.lists("server") != nil, file?.string("host") != nil || file?.string("port") != nil {
            throw UsageError("\(file?.name ?? "the configuration"): server = names the servers itself: not with host = or port =")
        }
        let wantedServers = onCommandLine ? options.strings("server") : (file?.lists("server") ?? [])
        host = options.string("host") ?? file?.string("host") ?? host
        port = UInt16(try options.string("port") != nil
            ? options.integer("port", default: 4433, in: 1...65535)
            : file?.integer("port", in: 1...65535) ?? 4433)
        nick = options.string("nick") ?? file?.string("nick")
        let wantedRooms = options.strings("room").isEmpty ? (file?.list("rooms") ?? rooms) : options.strings("room")
        roomsGiven = !options.strings("room").isEmpty
        rooms = try wantedRooms.map(Self.room)
        if rooms.isEmpty { rooms = [ChatLimits.defaultRoom] }
        insecure = options.flag("insecure")
        trustOnFirstUse = options.flag("trust-on-first-use")
        if trustOnFirstUse && (insecure || options.string("ca") != nil) {
            throw UsageError("--trust-on-first-use is for a server no CA signs: not with --ca or --insecure")
        }
        discover = options.flag("discover")
        waitSeconds = try options.integer("wait", default: 5, in: 0...3600)
        waitGiven = options.string("wait") != nil
        try takeServers(wantedServers, hostOrPortGiven: options.string("host") != nil || options.string("port") != nil)
        certificate = options.string("cert") ?? file?.string("cert")
        key = options.string("key") ?? file?.string("key")
        if (certificate == nil) != (key == nil) { throw UsageError("--cert and --key go together") }
        if options.flag("no-identity") && options.string("identity") != nil { throw UsageError("--identity and --no-identity exclude each other") }
        if certificate == nil && !options.flag("no-identity") {
            identity = options.string("identity") ?? file?.string("identity") ?? paths.configDirectory + "/identity.pem"
        }
        json = options.flag("json")
        plain = options.flag("plain")
        highlightWords = file?.list("highlight") ?? []
        ignored = file?.list("ignore") ?? []
        smartFilter = try file?.bool("smart-filter") ?? false
        configurationPath = options.string("config") ?? paths.configurationFile
        timestampFormat = options.string("timestamp") ?? file?.string("timestamp")
        let fileColors = try file?.bool("colors") ?? true
        let fileLogs = try file?.bool("logs") ?? false
        colors = !options.flag("no-color") && fileColors
        logs = options.flag("logs") || fileLogs
        bell = try file?.bool("bell") ?? true
        if let notify = file?.string("notify"), notify.lowercased() != "off" {
            guard let kind = DesktopNotification(rawValue: notify.lowercased()) else {
                throw UsageError("\(configurationPath) line \(file?.line(of: "notify") ?? 0): notify must be off, osc9 or osc777, not '\(notify)'")
            }
            notification = kind
        }
        if !insecure {
            // A CA named is the only trust; without one, a CA found by default may sign the
            // server, and trust on first use covers a server it does not sign.
            if let explicit = options.string("ca") ?? file?.string("ca") {
                guard access(explicit, R_OK) == 0 else { throw UsageError("cannot read CA file \(explicit) (run 'make certs' or pass --ca)") }
                ca = explicit
                caRequired = true
            } else {
                ca = paths.defaultCA()
            }
        }
    }

    /// Sorts the `--server` values into addresses (``servers``) and a name on the local network
    /// (``serverName``), which exclude each other.
    private mutating func takeServers(_ values: [String], hostOrPortGiven: Bool) throws(UsageError) {
        let (addresses, names): ([ServerSpec], [String])
        do {
            (addresses, names) = try ServerSpec.sort(values)
        } catch {
            throw UsageError(error.text)
        }
        guard names.count <= 1, names.isEmpty || addresses.isEmpty else {
            throw UsageError("--server takes HOST:PORT (repeatable) or the one NAME of a server on the local network, not both")
        }
        serverName = names.first
        if serverName != nil && (discover || hostOrPortGiven) {
            throw UsageError("--server NAME finds the host and port itself: not with --discover, --host or --port")
        }
        if let name = serverName, name.isEmpty || name.utf8.count > 63 || name.contains("\n") {
            throw UsageError("--server takes an instance name of 1 to 63 bytes, or HOST:PORT")
        }
        guard !addresses.isEmpty else { return }
        if discover || hostOrPortGiven { throw UsageError("--server HOST:PORT names the servers itself: not with --discover, --host or --port") }
        servers = addresses
    }

    /// The server as the client's local state names it (private messages, session slots):
    /// `HOST-PORT`; for several servers, all of them in order of their names.
    var serverKey: String {
        guard servers.count > 1 else { return "\(host)-\(port)" }
        let key = servers.map { "\($0.host)-\($0.port)" }.sorted().joined(separator: "+")
        guard key.utf8.count > 120 else { return key }
        // Too long for a file name: a readable start and a digest of the whole.
        return String(key.prefix(80)) + "+" + String(SHA256.hex(of: Array(key.utf8)).prefix(16))
    }


    /// The configuration file: the one named (which must exist), else the default if there is one.
    static func settings(named name: String?, paths: ClientPaths) throws(UsageError) -> SettingsFile? {
        let path = name ?? paths.configurationFile
        guard let text = ClientPaths.read(path) else {
            if name != nil { throw UsageError("cannot read configuration file \(path)") }
            return nil
        }
        return try SettingsFile(text: text, name: path, keys: settingKeys)
    }

    /// A room name as people type it (`#dev` is dev), checked against the protocol's rules.
    static func room(_ typed: String) throws(UsageError) -> String {
        switch TypedName.room(typed) {
        case .success(let room): return room
        case .failure(.message(let text)): throw UsageError(text)
        case .failure(.usage): throw UsageError("'\(typed)' is not a valid room name")
        }
    }

}
