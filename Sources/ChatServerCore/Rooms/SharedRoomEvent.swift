/// A room event as the shared log gives it back: live, in seq order, or from a read.
public struct SharedRoomEvent: Sendable, Equatable {
    public let room: String
    public let seq: Int64
    public let kind: StoredEventKind
    /// The connection on THIS node whose request made it; nil for another node's events and the
    /// server's own.
    public let origin: ClientID?
    /// The token of THIS node's append that made it (``RoomEventAppend/token``), when the log
    /// gives it back: its ack may go out with it, before the append's reply comes.
    public let append: UInt64?
    /// The event as members receive it: a JSON object, no LF.
    public let payload: [UInt8]
    /// For a `joined` or `nick`: the member's status when not `online` (``RoomEventAppend/memberStatus``).
    public let memberStatus: PresenceStatus?

    public init(room: String, seq: Int64, kind: StoredEventKind, origin: ClientID?, append: UInt64? = nil, payload: [UInt8],
                memberStatus: PresenceStatus? = nil) {
        self.room = room
        self.seq = seq
        self.kind = kind
        self.origin = origin
        self.append = append
        self.payload = payload
        self.memberStatus = memberStatus
    }
}
