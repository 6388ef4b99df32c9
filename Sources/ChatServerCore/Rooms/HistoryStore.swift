/// Where room events and message receipts live: in memory (``InMemoryHistoryStore``) or in
/// a SQLite file (``SQLiteHistoryStore``) that survives restarts.
///
/// The server calls a store from one thread only. `append` must be durable when it returns,
/// as far as the store promises durability, because the server sends `ack` right after it.
public protocol HistoryStore: AnyObject {
    /// The highest seq ever stored in `room`, 0 for a room without events. Stores never
    /// prune a room's newest event, so this survives pruning.
    func lastSequence(inRoom room: String) throws -> Int64

    /// Stores events and receipts in one transaction, then prunes each touched room down to
    /// at least its newest `retainPerRoom` events.
    func append(events: [StoredEvent], receipts: [MessageReceipt], retainPerRoom: Int) throws

    /// The newest `limit` events of `room` with `after < seq < before` (nil: unbounded),
    /// oldest first.
    func events(inRoom room: String, after: Int64?, before: Int64?, limit: Int) throws -> [StoredEvent]

    /// The receipt of the message `id` of `peer`, if the store still has it.
    func receipt(peer: String, id: String) throws -> MessageReceipt?

    /// The room has had no members for longer than the server keeps rooms in memory: a store
    /// that holds events in memory drops the room's, and from then on answers `lastSequence` for
    /// it (and for every room it does not know) with at least the room's last seq, so seq never
    /// goes back. A store on disk keeps everything.
    func forget(room: String)
}
