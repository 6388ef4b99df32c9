import CLIOptions
import ChatClientKit
import QuicEngine

/// The QUIC side every client mode shares: an endpoint on the loop, and one session to the
/// server that reconnects by itself (started by the caller).
enum ClientConnection {
    static func open(_ options: ClientOptions, nick: String, policy: ServerCertificatePolicy, on loop: EventLoop) throws -> ResilientSession {
        guard let server = SocketAddress.resolve(host: options.host, port: options.port) else {
            throw UsageError("cannot resolve --host \(options.host)")
        }
        var tls = QuicTLSConfiguration(trustedCAPath: options.ca, insecureSkipVerification: options.insecure,
                                       serverName: options.host, alpn: ["qchat/1"])
        tls.serverCertificatePolicy = policy
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
        let pool = try ChatSessionPool(driver: QuicDriver(loop: loop, endpoint: try QuicEndpoint(now: .now())),
                                       server: server, configuration: configuration)
        return ResilientSession(pool: pool, loop: loop, nick: nick, rooms: options.rooms)
    }
}
