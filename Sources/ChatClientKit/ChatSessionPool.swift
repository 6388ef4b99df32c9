import QuicIO

/// Many sessions on one driver (bots, tests, the client's reconnects): connects them and routes
/// each engine event to the session of its connection. New connections resume a TLS session
/// with the newest session ticket a connection of the pool with the same client certificate
/// received from the same server, so a reconnect skips the server's certificate, its signature
/// and the verification.
///
/// Tickets are kept per client certificate: a resumed session keeps the authentication of the
/// one it resumes (RFC 8446 section 2.2; the server sees that session's certificate), so a
/// connection that resumed another identity's session would be logged in as that account, and
/// one that resumed a session made without a certificate would lose its own (PROTOCOL.md
/// section 7).
public final class ChatSessionPool {
    public let driver: QuicDriver
    /// The server new sessions reach unless ``connect(nick:peer:room:since:configuration:to:)``
    /// names another.
    public let server: SocketAddress
    /// The local address the pool's connections to ``server`` leave from.
    public let local: SocketAddress
    public var configuration: QuicConfiguration
    public private(set) var sessions: [UInt64: ChatSession] = [:]
    /// Offer ``sessionTicket`` on new connections (on by default).
    public var resumesSessions = true
    /// The newest session ticket a connection of this pool to ``server`` with the pool's own
    /// client certificate (``configuration``) received, or one loaded from an earlier run; nil
    /// before the first.
    public var sessionTicket: [UInt8]? {
        get { tickets[Self.ticketKey(Self.identity(of: configuration), server)] }
        set { tickets[Self.ticketKey(Self.identity(of: configuration), server)] = newValue }
    }
    /// Tickets by the client certificate (its chain's path; "" for none) they were issued with
    /// and the server that issued them: a ticket is only worth offering to its issuer.
    private var tickets: [String: [UInt8]] = [:]
    /// The ticket key of each connection of the pool, until it closes.
    private var ticketKeys: [UInt64: String] = [:]
    /// Local sockets by the kind of server they reach (``localKind(for:)``).
    private var locals: [String: SocketAddress] = [:]

    /// How long our clients hold an ACK for the packets after it (``QuicConfiguration/acknowledgementHold``):
    /// a member that acknowledged each delivery at once cost a busy server a datagram to read
    /// per delivery (issue 25). 10 ms stays well below the 25 ms max_ack_delay we advertise, so
    /// the server's loss recovery waits no longer than it already allows, and leaves room for a
    /// loaded client's loop to wake late. Message latency is not touched: an ACK carries none.
    public static let acknowledgementHold = TimeSpan.milliseconds(10)

    public init(driver: QuicDriver, server: SocketAddress, configuration: QuicConfiguration) throws {
        self.driver = driver
        self.server = server
        self.configuration = configuration
        local = try driver.bind(Self.localAddress(for: server), reportsUnreachable: true)
        locals[Self.localKind(for: server)] = local
        driver.onEvent = { [unowned self] connection, event in
            sessions[connection.id]?.handle(event)
            keepTicket(of: connection, after: event)
            if case .closed = event { sessions[connection.id] = nil }
        }
    }

    /// Starts a session, to ``server`` or to `other`; it joins `room` as soon as the handshake
    /// completes.
    public func connect(nick: String, peer: String = ChatSession.randomPeerID(), room: String = "lobby", since: Int64? = nil,
                        configuration override: QuicConfiguration? = nil, to other: SocketAddress? = nil) throws -> ChatSession {
        var configuration = override ?? configuration
        let remote = other ?? server
        let key = Self.ticketKey(Self.identity(of: configuration), remote)
        if resumesSessions, configuration.tls.resumptionTicket == nil { configuration.tls.resumptionTicket = tickets[key] }
        let connection = try driver.endpoint.connect(to: remote, from: try localAddress(for: remote), configuration: configuration,
                                                     now: .now())
        ticketKeys[connection.id] = key
        let session = ChatSession(connection: connection, nick: nick, peer: peer, room: room, since: since)
        sessions[connection.id] = session
        return session
    }

    /// Starts a session to one of several servers: its host is the TLS server name, its policy
    /// the certificate's check (the pool's other settings as they are).
    public func connect(nick: String, peer: String = ChatSession.randomPeerID(), room: String = "lobby", since: Int64? = nil,
                        to server: ServerAddress) throws -> ChatSession {
        var configuration = configuration
        configuration.tls.serverName = server.host
        configuration.tls.serverCertificatePolicy = server.policy
        return try connect(nick: nick, peer: peer, room: room, since: since, configuration: configuration, to: server.address)
    }

    /// The local socket for a server of that kind, bound the first time one is needed. A server on
    /// this machine is reached from loopback; any other from the address the kernel picks for its
    /// route (a socket bound to loopback cannot reach the network). ICMP port unreachable ends a
    /// connection at once (a server process that died).
    private func localAddress(for remote: SocketAddress) throws -> SocketAddress {
        let kind = Self.localKind(for: remote)
        if let bound = locals[kind] { return bound }
        let bound = try driver.bind(Self.localAddress(for: remote), reportsUnreachable: true)
        locals[kind] = bound
        return bound
    }

    static func localKind(for remote: SocketAddress) -> String {
        (remote.isIPv6 ? "6" : "4") + (AddressRange.loopback.contains { $0.contains(remote) } ? "-loopback" : "-any")
    }

    static func localAddress(for remote: SocketAddress) -> SocketAddress {
        let isLocal = AddressRange.loopback.contains { $0.contains(remote) }
        let any = remote.isIPv6 ? (isLocal ? "::1" : "::") : (isLocal ? "127.0.0.1" : "0.0.0.0")
        return SocketAddress(host: any, port: 0)!
    }

    /// The ticket arrives just after the handshake: taken with the first stream data so that
    /// connections started meanwhile can use it, and again when a connection closes (its newest).
    /// Public for drivers that route some connections themselves (tests with bare clients).
    /// A connection the pool did not make counts as one with the pool's own certificate.
    public func keepTicket(of connection: QuicConnection, after event: QuicEvent) {
        let key = ticketKeys[connection.id] ?? Self.ticketKey(Self.identity(of: configuration), connection.remoteAddress)
        switch event {
        case .streamData where tickets[key] == nil, .closed:
            if let ticket = connection.sessionTicket { tickets[key] = ticket }
        default:
            break
        }
        if case .closed = event { ticketKeys[connection.id] = nil }
    }

    static func ticketKey(_ identity: String, _ server: SocketAddress) -> String { identity + "\u{0}" + server.description }

    /// What tells identities apart: the client certificate chain presented ("" for none).
    static func identity(of configuration: QuicConfiguration) -> String {
        configuration.tls.certificateChainPath ?? ""
    }
}
