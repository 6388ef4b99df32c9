/// Where room events get their seq and how they come back to the members (docs/CLUSTER.md).
public enum RoomLogMode: Sendable, Equatable {
    /// One server: the core hands out seqs itself and stores each event in its ``HistoryStore``
    /// before it is sent, all within the call that caused it.
    case local
    /// Several nodes sharing an outside log (Redis, `--cluster`): an event is an
    /// ``ServerAction/appendRoomEvent(_:)`` whose outcome comes back through
    /// ``ChatServerState/roomEventAppended(_:_:now:)``, and every event of a followed room, this
    /// node's own included, comes back in seq order through
    /// ``ChatServerState/roomEventDelivered(_:now:)``, which is when members see it.
    case shared
}
