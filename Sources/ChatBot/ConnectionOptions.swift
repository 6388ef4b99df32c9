import CLIOptions
import ChatClientKit
import Glibc
import QuicIO

/// Where and how every bot of a process connects: the flags `chat-client` has, with its defaults.
struct ConnectionOptions: ServerListOptions {
    static let valuedFlags: Set<String> = ["host", "port", "ca", "handshake-timeout", "session-file", "ack-hold-ms"]
    static let switchFlags: Set<String> = ["insecure", "no-resume"]
    /// `--server HOST:PORT`, repeatable: the commands that spread their bots over several servers.
    static let serverFlag: Set<String> = ["server"]
    static let serverUsage = """
          --server HOST:PORT  a server (a DNS name, an IPv4 address or [IPv6]), repeatable instead of --host and
                          --port; a name with several addresses counts as several servers. The bots are spread
                          over them round robin, in the order given (bot or client N on server N mod count)
        """
    static let usage = """
          --host H        server (default 127.0.0.1)
          --port P        UDP port (default 4433)
          --ca FILE       CA that signs the server certificate (default certs/ca.pem)
          --insecure      skip certificate verification (development only)
          --handshake-timeout S   give up a handshake after S seconds (default 10; raise it on very lossy links)
          --ack-hold-ms MS        hold an ACK up to MS ms for the packets after it (default 10; 0 acknowledges on
                          ngtcp2's schedule, each packet within microseconds on loopback)
          --session-file FILE     resume TLS sessions with the ticket in FILE, and keep the newest one there
          --no-resume     every connection makes a full handshake (by default a connection resumes with the
                          newest session ticket an earlier one received)
        """

    /// The servers as given (one: --host and --port).
    var servers = [ServerSpec(host: "127.0.0.1", port: 4433)]
    var ca: String?
    var insecure = false
    var handshakeTimeout = 10.0
    var acknowledgementHoldMilliseconds = Double(ChatSessionPool.acknowledgementHold.nanoseconds) / 1e6
    var sessionFile: String?
    var resumes = true

    /// `defaultPort` is qchat's UDP 4433, or 6697 (IRC over TLS) for `chat-bot irc-load`.
    init(_ options: Options, defaultPort: Int = 4433) throws(UsageError) {
        handshakeTimeout = try options.double("handshake-timeout", default: handshakeTimeout, in: 1...600)
        acknowledgementHoldMilliseconds = try options.double("ack-hold-ms", default: acknowledgementHoldMilliseconds, in: 0...20)
        sessionFile = options.string("session-file")
        resumes = !options.flag("no-resume")
        host = options.string("host", default: host)
        port = UInt16(try options.integer("port", default: defaultPort, in: 1...65535))
        let given = options.strings("server")
        if !given.isEmpty {
            guard options.string("host") == nil, options.string("port") == nil else {
                throw UsageError("--server HOST:PORT names the servers itself: not with --host or --port")
            }
            let (addresses, names): ([ServerSpec], [String])
            do {
                (addresses, names) = try ServerSpec.sort(given)
            } catch {
                throw UsageError(error.text)
            }
            if let name = names.first {
                throw UsageError("--server takes HOST:PORT (a DNS name, an IPv4 address or [IPv6], and a port), not '\(name)'")
            }
            servers = addresses
        }
        insecure = options.flag("insecure")
        ca = options.string("ca") ?? (insecure ? nil : "certs/ca.pem")
        if let ca, access(ca, R_OK) != 0 { throw UsageError("cannot read CA file \(ca) (run 'make certs' or pass --ca)") }
    }

    /// Every address of every server, in order (a name with several addresses is several
    /// servers); a name that does not resolve is an error.
    func resolvedServers() throws(UsageError) -> [ServerAddress] {
        let (addresses, unresolved) = ServerSpec.resolve(servers)
        if let server = unresolved.first { throw UsageError(servers.count > 1 ? "cannot resolve \(server)" : "cannot resolve --host \(host)") }
        return addresses
    }


    /// A session pool on its own driver on `loop`: every bot of the process shares it. Its own
    /// server is the first; ``ChatSessionPool/connect(nick:peer:room:since:to:)`` reaches the others.
    func makePool(on loop: EventLoop, datagrams: Bool = true) throws -> ChatSessionPool {
        let server = try resolvedServers()[0].address
        let tls = QuicTLSConfiguration(trustedCAPath: ca, insecureSkipVerification: insecure, serverName: host, alpn: ["qchat/1"])
        var configuration = QuicConfiguration(tls: tls)
        // PROTOCOL.md section 1: a connected client keeps the connection alive at least every 10 s.
        configuration.keepAliveInterval = .seconds(10)
        // A server that stops answering (a stopped process, a dead host) is left within 5 s of
        // anything unanswered (the keep-alive PING included), for the next server (issue 26).
        configuration.silenceTimeout = .seconds(5)
        if !datagrams { configuration.maxDatagramFrameSize = 0 }
        configuration.handshakeTimeout = .milliseconds(UInt64(handshakeTimeout * 1000))
        configuration.acknowledgementHold = TimeSpan(nanoseconds: UInt64((acknowledgementHoldMilliseconds * 1e6).rounded()))
        let pool = try ChatSessionPool(driver: QuicDriver(loop: loop, endpoint: try QuicEndpoint(now: .now())),
                                       server: server, configuration: configuration)
        pool.resumesSessions = resumes
        if let sessionFile { pool.sessionTicket = SessionFile.load(sessionFile) }
        return pool
    }

    /// Keeps the pool's newest ticket in `--session-file`, if one was given.
    func saveTicket(of pool: ChatSessionPool) {
        guard let sessionFile, let ticket = pool.sessionTicket else { return }
        if !SessionFile.save(ticket, to: sessionFile) { Console.error("chat-bot: cannot write --session-file \(sessionFile)") }
    }
}
