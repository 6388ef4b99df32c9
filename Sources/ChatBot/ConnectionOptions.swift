import CLIOptions
import ChatClientKit
import Glibc
import QuicEngine

/// Where and how every bot of a process connects: the flags `chat-client` has, with its defaults.
struct ConnectionOptions {
    static let valuedFlags: Set<String> = ["host", "port", "ca", "handshake-timeout", "session-file"]
    static let switchFlags: Set<String> = ["insecure", "no-resume"]
    static let usage = """
          --host H        server (default 127.0.0.1)
          --port P        UDP port (default 4433)
          --ca FILE       CA that signs the server certificate (default certs/ca.pem)
          --insecure      skip certificate verification (development only)
          --handshake-timeout S   give up a handshake after S seconds (default 10; raise it on very lossy links)
          --session-file FILE     resume TLS sessions with the ticket in FILE, and keep the newest one there
          --no-resume     every connection makes a full handshake (by default a connection resumes with the
                          newest session ticket an earlier one received)
        """

    var host = "127.0.0.1"
    var port: UInt16 = 4433
    var ca: String?
    var insecure = false
    var handshakeTimeout = 10.0
    var sessionFile: String?
    var resumes = true

    /// `defaultPort` is qchat's UDP 4433, or 6697 (IRC over TLS) for `chat-bot irc-load`.
    init(_ options: Options, defaultPort: Int = 4433) throws(UsageError) {
        handshakeTimeout = try options.double("handshake-timeout", default: handshakeTimeout, in: 1...600)
        sessionFile = options.string("session-file")
        resumes = !options.flag("no-resume")
        host = options.string("host", default: host)
        port = UInt16(try options.integer("port", default: defaultPort, in: 1...65535))
        insecure = options.flag("insecure")
        ca = options.string("ca") ?? (insecure ? nil : "certs/ca.pem")
        if let ca, access(ca, R_OK) != 0 { throw UsageError("cannot read CA file \(ca) (run 'make certs' or pass --ca)") }
    }

    /// A session pool on its own driver on `loop`: every bot of the process shares it.
    func makePool(on loop: EventLoop, datagrams: Bool = true) throws -> ChatSessionPool {
        guard let server = SocketAddress.resolve(host: host, port: port) else {
            throw UsageError("cannot resolve --host \(host)")
        }
        let tls = QuicTLSConfiguration(trustedCAPath: ca, insecureSkipVerification: insecure, serverName: host, alpn: ["qchat/1"])
        var configuration = QuicConfiguration(tls: tls)
        // PROTOCOL.md section 1: a connected client keeps the connection alive at least every 10 s.
        configuration.keepAliveInterval = .seconds(10)
        if !datagrams { configuration.maxDatagramFrameSize = 0 }
        configuration.handshakeTimeout = .milliseconds(UInt64(handshakeTimeout * 1000))
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
