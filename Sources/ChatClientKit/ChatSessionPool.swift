import QuicEngine

/// Many sessions on one driver (bots, tests, the client's reconnects): connects them and routes
/// each engine event to the session of its connection. New connections resume a TLS session
/// with the newest session ticket any of the pool's connections received, so a reconnect skips
/// the server's certificate, its signature and the verification.
public final class ChatSessionPool {
    public let driver: QuicDriver
    public let server: SocketAddress
    public let local: SocketAddress
    public var configuration: QuicConfiguration
    public private(set) var sessions: [UInt64: ChatSession] = [:]
    /// Offer ``sessionTicket`` on new connections (on by default).
    public var resumesSessions = true
    /// The newest session ticket a connection of this pool received (or one loaded from an
    /// earlier run); nil before the first.
    public var sessionTicket: [UInt8]?

    public init(driver: QuicDriver, server: SocketAddress, configuration: QuicConfiguration) throws {
        self.driver = driver
        self.server = server
        self.configuration = configuration
        local = try driver.bind(SocketAddress(host: server.isIPv6 ? "::1" : "127.0.0.1", port: 0)!)
        driver.onEvent = { [unowned self] connection, event in
            sessions[connection.id]?.handle(event)
            keepTicket(of: connection, after: event)
            if case .closed = event { sessions[connection.id] = nil }
        }
    }

    /// Starts a session; it joins `room` as soon as the handshake completes.
    public func connect(nick: String, peer: String = ChatSession.randomPeerID(), room: String = "lobby", since: Int64? = nil,
                        configuration override: QuicConfiguration? = nil) throws -> ChatSession {
        var configuration = override ?? configuration
        if resumesSessions, configuration.tls.resumptionTicket == nil { configuration.tls.resumptionTicket = sessionTicket }
        let connection = try driver.endpoint.connect(to: server, from: local, configuration: configuration, now: .now())
        let session = ChatSession(connection: connection, nick: nick, peer: peer, room: room, since: since)
        sessions[connection.id] = session
        return session
    }

    /// The ticket arrives just after the handshake: taken with the first stream data so that
    /// connections started meanwhile can use it, and again when a connection closes (its newest).
    /// Public for drivers that route some connections themselves (tests with bare clients).
    public func keepTicket(of connection: QuicConnection, after event: QuicEvent) {
        switch event {
        case .streamData where sessionTicket == nil, .closed:
            if let ticket = connection.sessionTicket { sessionTicket = ticket }
        default:
            break
        }
    }
}
