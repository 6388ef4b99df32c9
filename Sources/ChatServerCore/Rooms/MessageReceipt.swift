/// What the server answered to a `msg` or `dm` that carried an `id`, kept so that a resend
/// of the same id from the same peer gets the same `ack` and is not delivered again.
public struct MessageReceipt: Sendable, Equatable, Hashable {
    /// The peer id (upper-case UUID) of the sender.
    public var peer: String
    /// The client's id of the message.
    public var id: String
    /// The room of a `msg`; nil for a `dm`.
    public var room: String?
    /// The seq of a `msg`; nil for a `dm`.
    public var seq: Int64?
    public var ts: Int64

    public init(peer: String, id: String, room: String? = nil, seq: Int64? = nil, ts: Int64) {
        self.peer = peer
        self.id = id
        self.room = room
        self.seq = seq
        self.ts = ts
    }
}
