import ChatServerCore

/// The disk side of the local room log (``LocalStoreAdapter``): in memory, or the `--db` SQLite file
/// (SQLiteStorage's `SQLiteHistoryStore`). Used by one thread, the ``StoreWorker``'s, never the
/// event loop's.
public protocol RoomLogDisk: AnyObject {
    /// Each room's reserved seq: no seq above it was ever handed out, so after a restart (even
    /// after `kill -9`) the room goes on above it and never reuses a seq a member saw.
    func reservedSequences() throws -> [String: Int64]
    /// The message receipts kept, oldest first: a resend after a restart is answered from them.
    func storedReceipts() throws -> [MessageReceipt]
    /// One transaction: the events, the receipts and the raised reservations; then each touched
    /// room is pruned to at least its newest `retainPerRoom` events.
    func commit(_ batch: RoomLogBatch, retainPerRoom: Int) throws
    /// `limit` of the events of `room` with `after < seq < before` (nil: unbounded), the newest
    /// or the oldest of them, oldest first.
    func events(inRoom room: String, after: Int64?, before: Int64?, limit: Int, newest: Bool) throws -> [StoredEvent]
    /// A room idle beyond the adapter's bound: a disk in memory lets its events and reservation go
    /// (the adapter goes on above every seq a forgotten room had); a file keeps everything.
    func forget(room: String)
}

/// What one worker round writes in one transaction (group commit).
public struct RoomLogBatch: Sendable, Equatable {
    public var events: [StoredEvent] = []
    public var receipts: [MessageReceipt] = []
    /// Room → its new reserved seq.
    public var reservations: [String: Int64] = [:]

    public init(events: [StoredEvent] = [], receipts: [MessageReceipt] = [], reservations: [String: Int64] = [:]) {
        self.events = events
        self.receipts = receipts
        self.reservations = reservations
    }

    public var isEmpty: Bool { events.isEmpty && receipts.isEmpty && reservations.isEmpty }

    mutating func merge(_ other: RoomLogBatch) {
        events += other.events
        receipts += other.receipts
        reservations.merge(other.reservations) { max($0, $1) }
    }
}
