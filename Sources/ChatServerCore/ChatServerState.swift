import ChatProtocol

/// The chat server without sockets, clock or threads: the glue reports what happened on the
/// QUIC connections, and each call returns the actions to carry out, in order.
///
/// Not thread-safe and not Sendable: the glue calls it from its one event-loop thread. Every
/// rule of PROTOCOL.md sections 2 to 5 that is not about transport lives here; the feature
/// extensions (`+Hello`, `+Rooms`, `+Messages`, ...) each implement one part.
public final class ChatServerState {
    /// Replaced by ``reconfigure(_:now:)``.
    public internal(set) var configuration: ChatServerConfiguration
    let history: any HistoryStore
    public internal(set) var statistics = ChatServerStatistics()

    /// Every connection the core still serves, said hello or not.
    var clients: [ClientID: ClientSession] = [:]
    /// Peer id → the connection that said hello with it; a newer one replaces it.
    var activeChatStreams: [String: ClientID] = [:]
    /// Peer id → the connection whose presence stream exists.
    var activePresenceStreams: [String: ClientID] = [:]
    /// ``ChatValidation/nickKey(_:)`` → the connection holding that nick.
    var clientsByNickKey: [String: ClientID] = [:]
    /// Rooms with at least one member.
    var rooms: [String: Room] = [:]
    /// The last seq handed out per room, for rooms with members and the most recently idle ones.
    var lastSequenceByRoom: [String: Int64] = [:]
    /// Rooms without members still held in memory, longest idle first (bounded by `idleRoomLimit`).
    var idleRooms = IdleRooms()
    /// Rooms with a seq handed out whose store write failed: their cached seq is never dropped,
    /// so that seq is not handed out twice.
    var roomsAheadOfStore: Set<String> = []

    /// Throws ``ChatServerConfigurationError`` for a configuration out of range.
    public init(configuration: ChatServerConfiguration = ChatServerConfiguration(), history: any HistoryStore) throws {
        try configuration.validate()
        self.configuration = configuration
        self.history = history
    }

    /// How many connections the core serves, said hello or not.
    public var connectedClientCount: Int { clients.count }

    /// The nick of a connection that has said hello.
    public func nick(of client: ClientID) -> String? {
        guard let session = clients[client], session.phase == .active else { return nil }
        return session.nick
    }

    /// The client that holds a nick, compared case-insensitively.
    func activeSession(forNick nick: String) -> ClientSession? {
        guard let id = clientsByNickKey[ChatValidation.nickKey(nick)], let session = clients[id],
            session.phase == .active
        else { return nil }
        return session
    }
}
