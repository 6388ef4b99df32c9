/// Everything the renderer shows besides the input line. The client's event loop updates it from
/// protocol events and keys; the renderer only reads it. Nicks compare case-insensitively, as the
/// protocol makes them unique that way; room names compare exactly (the server lower-cases them).
public struct ChatViewModel: Sendable, Equatable {
    /// The server's name from `welcome`, or the host the client dialled.
    public var serverName: String
    public var nick: String
    public var connection: ConnectionState = .connecting
    /// The QUIC connection's smoothed RTT, when known.
    public var roundTripMilliseconds: Int?
    /// The file transfer in progress the status bar shows (`↑ notes.txt [████▌     ] 45% 4.5
    /// MiB/10.0 MiB 8.1 MiB/s 1 s left`), nil when none runs.
    public var transfer: TransferProgress?
    public internal(set) var rooms: [ChatRoom] = []
    /// Index into `rooms` of the room shown; 0 when there are none.
    public internal(set) var currentRoomIndex = 0
    /// Statuses by lower-cased nick; users without one are shown online.
    public internal(set) var statuses: [String: MemberStatus] = [:]
    /// Older lines are dropped beyond this many per room.
    public var maximumLinesPerRoom: Int
    /// While a password is asked for: the prompt the input line shows instead of the room, and
    /// nothing of what is typed (no echo).
    public var secretPrompt: String?
    /// Set while the person is away (`/away REASON`; empty: no reason): the status bar says so.
    public var awayReason: String?
    /// A short answer shown on the typing line until the next key (`/search` finding nothing,
    /// `/history`): not a line of the room's scrollback.
    public var notice: String?
    /// The local zone's offset from UTC, for the day of a line: a rule marks where the day
    /// changes between two lines (`── 2026-12-08 ──`).
    public var utcOffsetSeconds = 0
    /// `/nicklist` hides the member list of rooms (so that text and URLs take the whole width).
    public var showsMemberList = true

    public init(serverName: String = "", nick: String = "", maximumLinesPerRoom: Int = 5000) {
        self.serverName = serverName
        self.nick = nick
        self.maximumLinesPerRoom = max(1, maximumLinesPerRoom)
    }

    public var currentRoom: ChatRoom? {
        rooms.indices.contains(currentRoomIndex) ? rooms[currentRoomIndex] : nil
    }

    public func roomIndex(named name: String) -> Int? {
        rooms.firstIndex { $0.name == name }
    }

    public func room(named name: String) -> ChatRoom? {
        roomIndex(named: name).map { rooms[$0] }
    }
}
