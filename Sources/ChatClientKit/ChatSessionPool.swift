import QuicEngine

/// Many sessions on one driver (bots, tests): connects them and routes each engine event to the
/// session of its connection.
public final class ChatSessionPool {
    public let driver: QuicDriver
    public let server: SocketAddress
    public let local: SocketAddress
    public var configuration: QuicConfiguration
    public private(set) var sessions: [UInt64: ChatSession] = [:]

    public init(driver: QuicDriver, server: SocketAddress, configuration: QuicConfiguration) throws {
        self.driver = driver
        self.server = server
        self.configuration = configuration
        local = try driver.bind(SocketAddress(host: server.isIPv6 ? "::1" : "127.0.0.1", port: 0)!)
        driver.onEvent = { [unowned self] connection, event in
            sessions[connection.id]?.handle(event)
            if case .closed = event { sessions[connection.id] = nil }
        }
    }

    /// Starts a session; it joins `room` as soon as the handshake completes.
    public func connect(nick: String, peer: String = ChatSession.randomPeerID(), room: String = "lobby", since: Int64? = nil,
                        configuration override: QuicConfiguration? = nil) throws -> ChatSession {
        let connection = try driver.endpoint.connect(to: server, from: local, configuration: override ?? configuration, now: .now())
        let session = ChatSession(connection: connection, nick: nick, peer: peer, room: room, since: since)
        sessions[connection.id] = session
        return session
    }
}
