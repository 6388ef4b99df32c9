import CLIOptions
import ChatClientKit
import QuicIO

/// The QUIC side every client mode shares: an endpoint on the loop, and one session that
/// reconnects by itself (started by the caller), to the server or, with several (`--server
/// HOST:PORT` repeated, a name with several addresses), to each in turn (PROTOCOL.md section 10).
enum ClientConnection {
    /// `rooms`: the rooms to join at start (default: the options').
    static func open(_ options: ClientOptions, nick: String, rooms: [String]? = nil, trust: ServerTrust, on loop: EventLoop) throws -> ResilientSession {
        let (servers, unresolved) = ServerSpec.resolve(options.servers) { trust.policy(for: $0, options) }
        guard let first = servers.first else {
            throw UsageError(options.servers.count > 1 ? "cannot resolve any of the servers (\(options.serverList))" : "cannot resolve \(options.host)")
        }
        for server in unresolved { Console.error("chat-client: cannot resolve \(server); not using it") }
        var tls = QuicTLSConfiguration(trustedCAPath: options.ca, insecureSkipVerification: options.insecure,
                                       serverName: first.host, alpn: ["qchat/1"])
        tls.serverCertificatePolicy = first.policy
        tls.certificateChainPath = options.certificate
        tls.privateKeyPath = options.key
        if let identity = options.identity {
            do {
                _ = try ClientIdentity.ensure(at: identity)
            } catch {
                throw UsageError("cannot make or read the identity \(identity): \(error)")
            }
            // One file holds both: the key, then the certificate.
            tls.certificateChainPath = identity
            tls.privateKeyPath = identity
        }
        var configuration = QuicConfiguration(tls: tls)
        configuration.keepAliveInterval = .seconds(10)
        configuration.acknowledgementHold = ChatSessionPool.acknowledgementHold
        // A server that stops answering (a stopped process, a dead host) is left within 5 s of
        // anything unanswered (the keep-alive PING included), for the next server (issue 26).
        configuration.silenceTimeout = .seconds(5)
        let pool = try ChatSessionPool(driver: QuicDriver(loop: loop, endpoint: try QuicEndpoint(now: .now())),
                                       server: first.address, configuration: configuration)
        let session = ResilientSession(pool: pool, loop: loop, nick: nick, rooms: rooms ?? options.rooms, servers: servers)
        // A server met only after the first welcome (the session moved to it) is never asked about:
        // `--trust-on-first-use` takes it (and lists it), otherwise it is left out.
        session.trustsUnknownServer = { server, fingerprint in
            guard options.trustOnFirstUse, trust.refusalWithoutAsking(fingerprint, server: server.spec) == nil else { return false }
            _ = trust.accept(fingerprint, for: server.spec)
            return true
        }
        return session
    }
}
