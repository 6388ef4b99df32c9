import QuicEngine

/// Many sessions on one driver (bots, tests, the client's reconnects): connects them and routes
/// each engine event to the session of its connection. New connections resume a TLS session
/// with the newest session ticket a connection of the pool with the same client certificate
/// received, so a reconnect skips the server's certificate, its signature and the verification.
///
/// Tickets are kept per client certificate: a resumed session keeps the authentication of the
/// one it resumes (RFC 8446 section 2.2; the server sees that session's certificate), so a
/// connection that resumed another identity's session would be logged in as that account, and
/// one that resumed a session made without a certificate would lose its own (PROTOCOL.md
/// section 7).
public final class ChatSessionPool {
    public let driver: QuicDriver
    public let server: SocketAddress
    public let local: SocketAddress
    public var configuration: QuicConfiguration
    public private(set) var sessions: [UInt64: ChatSession] = [:]
    /// Offer ``sessionTicket`` on new connections (on by default).
    public var resumesSessions = true
    /// The newest session ticket a connection of this pool with the pool's own client certificate
    /// (``configuration``) received, or one loaded from an earlier run; nil before the first.
    public var sessionTicket: [UInt8]? {
        get { tickets[Self.identity(of: configuration)] }
        set { tickets[Self.identity(of: configuration)] = newValue }
    }
    /// Tickets by the client certificate (its chain's path; "" for none) they were issued with.
    private var tickets: [String: [UInt8]] = [:]
    /// The certificate each connection of the pool presents, until it closes.
    private var identities: [UInt64: String] = [:]

    public init(driver: QuicDriver, server: SocketAddress, configuration: QuicConfiguration) throws {
        self.driver = driver
        self.server = server
        self.configuration = configuration
        // A server on this machine is reached from loopback; any other from the address the
        // kernel picks for its route (a socket bound to loopback cannot reach the network).
        let isLocal = AddressRange.loopback.contains { $0.contains(server) }
        let any = server.isIPv6 ? (isLocal ? "::1" : "::") : (isLocal ? "127.0.0.1" : "0.0.0.0")
        local = try driver.bind(SocketAddress(host: any, port: 0)!)
        driver.onEvent = { [unowned self] connection, event in
            sessions[connection.id]?.handle(event)
            keepTicket(of: connection, after: event)
            if case .closed = event { sessions[connection.id] = nil }
        }
    }

    /// Starts a session; it joins `room` as soon as the handshake completes. `address` is the
    /// pool's ``server`` unless given (another node of the same chat system, reached from the
    /// same ``local`` socket).
    public func connect(nick: String, peer: String = ChatSession.randomPeerID(), room: String = "lobby", since: Int64? = nil,
                        configuration override: QuicConfiguration? = nil, to address: SocketAddress? = nil) throws -> ChatSession {
        var configuration = override ?? configuration
        let identity = Self.identity(of: configuration)
        if resumesSessions, configuration.tls.resumptionTicket == nil { configuration.tls.resumptionTicket = tickets[identity] }
        let connection = try driver.endpoint.connect(to: address ?? server, from: local, configuration: configuration, now: .now())
        identities[connection.id] = identity
        let session = ChatSession(connection: connection, nick: nick, peer: peer, room: room, since: since)
        sessions[connection.id] = session
        return session
    }

    /// The ticket arrives just after the handshake: taken with the first stream data so that
    /// connections started meanwhile can use it, and again when a connection closes (its newest).
    /// Public for drivers that route some connections themselves (tests with bare clients).
    /// A connection the pool did not make counts as one with the pool's own certificate.
    public func keepTicket(of connection: QuicConnection, after event: QuicEvent) {
        let identity = identities[connection.id] ?? Self.identity(of: configuration)
        switch event {
        case .streamData where tickets[identity] == nil, .closed:
            if let ticket = connection.sessionTicket { tickets[identity] = ticket }
        default:
            break
        }
        if case .closed = event { identities[connection.id] = nil }
    }

    /// What tells identities apart: the client certificate chain presented ("" for none).
    static func identity(of configuration: QuicConfiguration) -> String {
        configuration.tls.certificateChainPath ?? ""
    }
}
