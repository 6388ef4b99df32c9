import CLIOptions
import ChatProtocol
import Glibc
import ChatServerCore
import QuicEngine

/// Everything `chat-server` takes from its command line and its configuration file.
struct ServerOptions {
    static let usage = """
        usage: chat-server --cert FILE --key FILE [options]
               chat-server --self-signed [--advertise [NAME]] [options]
               chat-server --config FILE [options]
          --config FILE        read settings from FILE: `key = value` lines, the keys named as these flags
                               (`flood-burst = 20`, `retry = on`); a flag given here wins; SIGHUP reloads it
          --host ADDR          address to listen on (default 127.0.0.1; :: or 0.0.0.0 for all)
          --port N             UDP port (default 4433; 0 picks a free one, see the log)
          --cert FILE          server certificate chain (PEM)
          --key FILE           its private key (PEM)
          --self-signed        no --cert/--key: an ECDSA P-256 key and a self-signed certificate made in the
                               state directory on first start (self-signed.pem, mode 0600) and kept; clients
                               trust it on first use (its fingerprint is logged)
          --print-fingerprint  print the certificate's SHA-256 fingerprint (sha256:HEX) and exit; with
                               --self-signed the certificate is made first if there is none
          --state-dir DIR      where the server keeps what it makes (default $STATE_DIRECTORY, else
                               $XDG_STATE_HOME/qchat, else ~/.local/state/qchat)
          --advertise [NAME]   publish _qchat._udp on the local network through avahi-daemon (DNS-SD), as
                               NAME (default the --name); listen on an address others reach (--host 0.0.0.0)
          --client-ca FILE     require client certificates signed by this CA (mutual TLS)
          --history N          room events kept per room (default 1000)
          --db PATH            keep history in this SQLite file (survives restarts); default: memory
          --files DIR          where shared files are stored (default with --db: PATH.files beside it;
                               without: a temporary folder removed at exit)
          --max-file-size BYTES  largest file a client may share (default 104857600)
          --file-quota BYTES   file bytes one account (or guest) may have stored and uploading (default 1073741824)
          --files-max-bytes BYTES  file bytes kept, stored and uploading; beyond, stored files go, the largest
                               holder's oldest first (default 10737418240)
          --file-quota-per-address BYTES  file bytes everyone uploading from one address (not an --exempt
                               one) may have stored and uploading together (default 1073741824)
          --disk-reserve BYTES free disk uploads leave for chat, history and accounts, where the files
                               and the database are; below it uploads are refused (default 67108864)
          --max-partial-uploads N  uploads in progress or interrupted (waiting an hour for a resume) one
                               account, guest or address may have (default 32)
          --max-partial-uploads-total N  the same for the whole server (default 10000)
          --max-uploads N      uploads received at once, each holding a file open (default 256); more are
                               refused unavailable
          --file-stall-timeout S  a file stream without progress for S seconds is given up, an upload kept
                               for its resume (default 60)
          --file-min-rate BYTES  bytes a second a file stream must move on average over each stall timeout
                               (time waiting for the server not counted), or it is given up the same way
                               (default 1024; 0: no minimum)
          --cluster URL        be one node of several sharing this Redis: redis://HOST:PORT[/DB] (one Redis)
                               or redis-cluster://HOST:PORT[,HOST:PORT...] (a Redis Cluster's seeds); room
                               events, their seqs and history live there (docs/CLUSTER.md)
          --node NAME          this node's name, unique among the nodes (default HOSTNAME-PORT)
          --cluster-wait-replicas N  acknowledge a message (and an account, file or lease write) only once
                               N replicas of its Redis master have it (WAIT; 0 to 5, default 0: Redis's
                               asynchronous replication, which a failover may lose the last writes of)
          --cluster-node-timeout S  seconds without a heartbeat after which the other nodes take this one
                               for lost (3 to 120, default 6; renewed every third of it, from a thread of
                               its own); also how long a stopping node's clients have to move elsewhere
          --max-clients N      concurrent connections (default 10000)
          --max-per-address N  connections from one address (IPv4, or IPv6 /64), handshakes included (default 16)
          --exempt CIDR        addresses the per-address limit does not apply to; repeatable; default the
                               loopback ranges 127.0.0.0/8 and ::1/128; --exempt none removes them
          --sendq BYTES        live bytes queued to one client before SLOW_CONSUMER (default 1048576)
          --replay-limit BYTES replay and history bytes queued to one client before SLOW_CONSUMER (default 8388608)
          --coalesce-ms MS     a client written to faster than every MS/2 ms gets its messages up to MS ms after
                               its last packet, several in one (0 to 25, default 5; others get each at once)
          --idle-memory-after S  a connection idle this long (up to twice as long) keeps its QUIC state in a
                               compact copy, its pages given back, until it is used (0 to 3600, default 2;
                               0 never)
          --max-rooms-per-client N  rooms one connection may be in (default 100)
          --idle-rooms N       rooms without members kept in memory with their history (default 1000); the
                               longest idle beyond are forgotten (with --db their history stays on disk)
          --flood-burst N      messages in a burst before rate limiting (default 20)
          --flood-rate R       messages a second sustained (default 5)
          --typing-rate R      typing indicators relayed a second per client (default 2)
          --name TEXT          server name sent in welcome (default qchat)
          --retry              make every client prove its address with a QUIC Retry first
          --retry-above N      do so only while N handshakes are in progress (default 256): a storm of
                               half-open connections then costs no memory
          --operator NAME[=sha256:FINGERPRINT]  make the account NAME a server operator (repeatable); the
                               name is reserved: only the console's `register NAME` (or a connection with
                               that client certificate) creates it
          --accounts-only      only logged-in connections get a hello (guests: error account-required)
          --lobby-claimable    let any logged-in user claim lobby, the room every client joins first (default:
                               only a server operator may)
          --password-queue N   password hashes and checks taken on at once (default 64), logins first;
                               beyond it register, password and login get rate-limited (a strike)
          --password-workers N threads hashing passwords off the event loop (default 1; 0 hashes on the
                               loop itself, which stalls every client: only to measure that cost)
          --registrations-per-address N  accounts registered from one address (not an --exempt one) in an
                               hour, on every node (default 10); beyond, register gets quota-exceeded
          --log-level LEVEL    debug, info, warning or error (default info)
          --log-format FORMAT  text (default) or json: one event a line on stderr
          --metrics [HOST:]PORT  serve Prometheus metrics at http://HOST:PORT/metrics (HOST default 127.0.0.1;
                               [::1]:PORT for IPv6); off by default
          --metrics-connections N  scrape connections at once (default 64); one more displaces the oldest idle one
          --metrics-request-bytes N  bytes of one request's head at most (default 8192); more: 431
          --metrics-timeout S  seconds a scrape connection may take, request and response (default 10)
          --metrics-cache S    seconds a built page is served again before it is rebuilt (default 1)
          --version            versions of chat-server, ngtcp2 and GnuTLS
          --help               this text
        Operator commands on standard input: who | kick NICK [REASON] | ban [#ROOM] NAME [REASON] |
          unban [#ROOM] NAME | op #ROOM ACCOUNT | deop #ROOM ACCOUNT | stats
        SIGHUP reloads the configuration file (limits, name, operators, log level and format, certificate
        and key); a file with a mistake is logged and the running settings stay.
        """

    /// Every flag that takes a value; all but `config` are keys of the configuration file too.
    static let valued: Set<String> = [
        "host", "port", "cert", "key", "client-ca", "history", "db", "max-clients", "sendq",
        "flood-burst", "flood-rate", "typing-rate", "name", "log-level", "log-format", "retry-above",
        "max-per-address", "exempt", "replay-limit", "coalesce-ms", "idle-memory-after", "max-rooms-per-client", "idle-rooms", "config",
        "metrics", "metrics-connections", "metrics-request-bytes", "metrics-timeout", "metrics-cache",
        "operator", "password-queue", "password-workers", "registrations-per-address", "state-dir", "files", "max-file-size", "file-quota", "files-max-bytes",
        "file-quota-per-address", "disk-reserve", "max-partial-uploads", "max-partial-uploads-total",
        "max-uploads", "file-stall-timeout", "file-min-rate",
        "cluster", "node", "cluster-wait-replicas", "cluster-node-timeout",
    ]
    static let switches: Set<String> = ["help", "version", "retry", "accounts-only", "lobby-claimable", "self-signed", "print-fingerprint"]
    /// Switches that may take a value (`--advertise`, `--advertise NAME`).
    static let optionallyValued: Set<String> = ["advertise"]
    static let onlyOnCommandLine: Set<String> = ["config", "help", "version", "print-fingerprint"]
    /// The self-signed certificate and its key, in the state directory.
    static let selfSignedFileName = "self-signed.pem"

    /// The command line as given: a reload parses it again over the file's new contents.
    let arguments: [String]
    var configurationFile: String?

    var host = "127.0.0.1"
    var port: UInt16 = 4433
    var certificate = ""
    var key = ""
    /// The certificate is the self-signed one of the state directory, made on first start.
    var selfSigned = false
    var printFingerprint = false
    var stateDirectory = ""
    /// The DNS-SD instance name to advertise under (`--advertise [NAME]`); nil: not advertised.
    var advertisedName: String?
    var clientCA: String?
    var databasePath: String?
    var filesDirectory: String?
    var maxClients = 10_000
    var sendQueueLimit = 1 << 20
    var replayLimit = 8 << 20
    /// `--coalesce-ms`: the engine's coalescing window (``QuicConfiguration/coalescingWindow``).
    var coalesceMilliseconds = 5.0
    /// `--idle-memory-after`: the engine's ``QuicConfiguration/idleMemoryDelay`` in seconds; 0: never.
    var idleMemorySeconds = 2.0
    var maxPerAddress = 16
    var exemptAddresses = AddressRange.loopback
    var retry = false
    var retryAboveHandshakes = 256
    var logLevel = LogLevel.info
    var logFormat = LogFormat.text
    var metrics = MetricsOptions()
    var passwordWorkers = 1
    /// `--cluster`: a node of several (nil: the one server, history in `databasePath` or memory).
    var cluster: ClusterOptions?
    var core = ChatServerConfiguration()

    /// `--help` or `--version`: printed on standard output, status 0.
    struct Information: Error { let text: String }

    init(_ arguments: [String]) throws {
        self.arguments = arguments
        let options = try ServerSettings(arguments, valued: ServerOptions.valued, switches: ServerOptions.switches,
                                         optionallyValued: ServerOptions.optionallyValued, onlyOnCommandLine: ServerOptions.onlyOnCommandLine)
        if options.commandLine.flag("help") { throw Information(text: ServerOptions.usage) }
        if options.commandLine.flag("version") {
            throw Information(text: ProgramVersion.line(program: "chat-server", libraries: QuicLibraryVersions.all))
        }
        guard options.positional.isEmpty else { throw UsageError("unexpected argument '\(options.positional[0])'") }
        configurationFile = options.commandLine.string("config")
        stateDirectory = options.string("state-dir") ?? ServerOptions.defaultStateDirectory()
        selfSigned = try options.flag("self-signed")
        printFingerprint = options.commandLine.flag("print-fingerprint")
        if selfSigned {
            guard options.string("cert") == nil && options.string("key") == nil else {
                throw UsageError("--self-signed makes its own certificate: give it without --cert and --key")
            }
            certificate = stateDirectory + "/" + ServerOptions.selfSignedFileName
            key = certificate
        } else {
            guard let certificate = options.string("cert"), let key = options.string("key") else {
                throw UsageError("--cert and --key (cert and key in a configuration file) are required, or --self-signed "
                    + "(make certs creates certs/server.pem and certs/server.key)")
            }
            self.certificate = certificate
            self.key = key
        }
        host = options.string("host", default: host)
        port = UInt16(try options.integer("port", default: 4433, in: 0...65535))
        clientCA = options.string("client-ca")
        databasePath = options.string("db")
        filesDirectory = options.string("files") ?? databasePath.map { $0 + ".files" }
        core.maxFileSize = Int64(try options.integer("max-file-size", default: Int(core.maxFileSize), in: 0...(1 << 50)))
        core.fileQuotaBytes = Int64(try options.integer("file-quota", default: Int(core.fileQuotaBytes), in: 0...(1 << 50)))
        core.filesMaxBytes = Int64(try options.integer("files-max-bytes", default: Int(core.filesMaxBytes), in: 0...(1 << 50)))
        core.fileQuotaPerAddressBytes = Int64(try options.integer("file-quota-per-address", default: Int(core.fileQuotaPerAddressBytes),
                                                                  in: 0...(1 << 50)))
        core.diskReserveBytes = Int64(try options.integer("disk-reserve", default: Int(core.diskReserveBytes), in: 0...(1 << 50)))
        core.maxPartialUploads = try options.integer("max-partial-uploads", default: core.maxPartialUploads, in: 1...1_000_000)
        core.maxPartialUploadsTotal = try options.integer("max-partial-uploads-total", default: core.maxPartialUploadsTotal,
                                                          in: 1...100_000_000)
        core.maxUploads = try options.integer("max-uploads", default: core.maxUploads, in: 1...1_000_000)
        core.fileStallMilliseconds = Int64(try options.double("file-stall-timeout", default: Double(core.fileStallMilliseconds) / 1000,
                                                              in: 1...86_400) * 1000)
        core.fileMinimumRate = Int64(try options.integer("file-min-rate", default: Int(core.fileMinimumRate), in: 0...(1 << 30)))
        maxClients = try options.integer("max-clients", default: maxClients, in: 1...1_000_000)
        sendQueueLimit = try options.integer("sendq", default: sendQueueLimit, in: 4096...(1 << 30))
        replayLimit = try options.integer("replay-limit", default: replayLimit, in: 65536...(1 << 30))
        coalesceMilliseconds = try options.double("coalesce-ms", default: coalesceMilliseconds, in: 0...25)
        idleMemorySeconds = try options.double("idle-memory-after", default: idleMemorySeconds, in: 0...3600)
        maxPerAddress = try options.integer("max-per-address", default: maxPerAddress, in: 1...1_000_000)
        exemptAddresses = try ServerOptions.exemptions(options)
        core.maxRoomsPerClient = try options.integer("max-rooms-per-client", default: core.maxRoomsPerClient, in: 1...1_000_000)
        core.idleRoomLimit = try options.integer("idle-rooms", default: core.idleRoomLimit, in: 0...10_000_000)
        retry = try options.flag("retry")
        retryAboveHandshakes = try options.integer("retry-above", default: retryAboveHandshakes, in: 0...1_000_000)
        core.historyPerRoom = try options.integer("history", default: core.historyPerRoom, in: 1...10_000_000)
        core.floodBurst = try options.integer("flood-burst", default: core.floodBurst, in: 1...1_000_000)
        core.floodPerSecond = try options.double("flood-rate", default: core.floodPerSecond, in: 0.01...1_000_000)
        core.typingPerSecond = try options.double("typing-rate", default: core.typingPerSecond, in: 0.01...1_000_000)
        core.typingBurst = max(core.typingBurst, Int(core.typingPerSecond.rounded(.up)))
        core.serverName = options.string("name", default: core.serverName)
        if let advertise = options.optionalValue("advertise") {
            let name = advertise.isEmpty ? core.serverName : advertise
            // A DNS-SD instance name is one DNS label of UTF-8: at most 63 bytes (RFC 6763 section 4.1.1).
            guard name.utf8.count <= 63, !name.contains(where: { $0.isNewline || $0 == "\0" }) else {
                throw options.invalid("advertise", "takes an instance name of at most 63 bytes on one line, not '\(name.prefix(70))'")
            }
            advertisedName = name
        }
        for value in options.strings("operator") {
            // NAME, or NAME=sha256:FINGERPRINT: the certificate that may register the account and is bound to it.
            let parts = value.split(separator: "=", maxSplits: 1).map(String.init)
            let name = parts.first ?? ""
            guard ChatValidation.isValidAccountName(name) else {
                throw options.invalid("operator", "takes an account name (a nick: a letter, then letters, digits, _ or -), not '\(value)'")
            }
            core.operators.insert(name)
            guard parts.count == 2 else { continue }
            let fingerprint = parts[1].hasPrefix("sha256:") ? String(parts[1].dropFirst("sha256:".count)).lowercased() : ""
            guard ChatServerConfiguration.isFingerprint(fingerprint) else {
                throw options.invalid("operator", "takes NAME=sha256: and a certificate's 64 hex digits, not '\(value)'")
            }
            core.operatorCertificates[ChatValidation.nickKey(name)] = fingerprint
        }
        core.accountsOnly = try options.flag("accounts-only")
        core.lobbyClaimable = try options.flag("lobby-claimable")
        core.passwordQueueLimit = try options.integer("password-queue", default: core.passwordQueueLimit, in: 1...100_000)
        passwordWorkers = try options.integer("password-workers", default: passwordWorkers, in: 0...64)
        core.registrationsPerAddress = try options.integer("registrations-per-address", default: core.registrationsPerAddress,
                                                           in: 1...1_000_000)
        // The core hands the workers one task each at a time and keeps the order of the rest.
        core.passwordTasksRunning = max(1, passwordWorkers)
        if let level = options.string("log-level") {
            guard let parsed = LogLevel.allCases.first(where: { $0.name == level }) else {
                throw options.invalid("log-level", "must be debug, info, warning or error, not '\(level)'")
            }
            logLevel = parsed
        }
        if let format = options.string("log-format") {
            guard let parsed = LogFormat(rawValue: format) else { throw options.invalid("log-format", "must be text or json, not '\(format)'") }
            logFormat = parsed
        }
        metrics = try MetricsOptions(options)
        if let url = options.string("cluster") {
            cluster = try ClusterOptions.parse(url, node: options.string("node"), defaultNode: ServerOptions.defaultNodeName(port: port),
                                               settings: options)
            cluster?.waitReplicas = try options.integer("cluster-wait-replicas", default: 0, in: ClusterOptions.waitReplicasRange)
            let timeout = try options.double("cluster-node-timeout", default: 6, in: ClusterOptions.nodeTimeoutRange)
            cluster?.nodeTimeout = TimeSpan(nanoseconds: UInt64(timeout * 1e9))
            core.nodeName = cluster?.node
        } else if options.string("node") != nil {
            throw options.invalid("node", "names a node of a cluster: give --cluster too")
        } else if options.string("cluster-wait-replicas") != nil {
            throw options.invalid("cluster-wait-replicas", "is for a node of a cluster: give --cluster too")
        } else if options.string("cluster-node-timeout") != nil {
            throw options.invalid("cluster-node-timeout", "is for a node of a cluster: give --cluster too")
        }
    }

    /// The host name and the port: unique on a network of nodes, as long as the host names are.
    static func defaultNodeName(port: UInt16) -> String {
        var buffer = [UInt8](repeating: 0, count: 256)
        let host = gethostname(&buffer, buffer.count - 1) == 0 ? String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self) : "node"
        let cleaned = String(host.prefix { $0 != "." }.filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
            .prefix(24))
        return (cleaned.isEmpty ? "node" : cleaned) + "-\(port)"
    }

    /// systemd's `StateDirectory=` (its first entry), else `$XDG_STATE_HOME/qchat`, else
    /// `~/.local/state/qchat`.
    static func defaultStateDirectory(environment: (String) -> String? = { getenv($0).map { String(cString: $0) } }) -> String {
        if let systemd = environment("STATE_DIRECTORY")?.split(separator: ":").first, systemd.hasPrefix("/") { return String(systemd) }
        if let state = environment("XDG_STATE_HOME"), state.hasPrefix("/") { return state + "/qchat" }
        let home = environment("HOME").flatMap { $0.isEmpty ? nil : $0 } ?? "."
        return home + "/.local/state/qchat"
    }

    /// `--exempt` values: CIDR blocks, or `none` for no exemption at all; none given means loopback.
    private static func exemptions(_ options: ServerSettings) throws(UsageError) -> [AddressRange] {
        let values = options.strings("exempt")
        guard !values.isEmpty else { return AddressRange.loopback }
        var ranges: [AddressRange] = []
        for value in values where value != "none" {
            guard let range = AddressRange(value) else {
                throw options.invalid("exempt", "must be an address or CIDR block such as 10.0.0.0/8 or ::1/128, or none, not '\(value)'")
            }
            ranges.append(range)
        }
        return ranges
    }
}
