/// A read of a room's stored events from the shared log: `limit` of those with
/// `after < seq < before` (nil: unbounded), the newest or the oldest of them, answered oldest
/// first through ``ChatServerState/roomEventsRead(_:_:now:)``. Reads are idempotent: the glue may
/// retry one.
public struct RoomEventRead: Sendable, Equatable {
    public let token: UInt64
    public let room: String
    public let after: Int64?
    public let before: Int64?
    public let limit: Int
    /// The newest `limit` (a replay, a page of history); false: the oldest (reading on after a seq).
    public let newest: Bool
}
