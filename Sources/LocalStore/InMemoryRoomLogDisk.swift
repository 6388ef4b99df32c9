import ChatServerCore

/// The room log of a server without `--db`: the same path as the SQLite file (the worker, group
/// commit, reservations), with tables that live as long as the process. Seq starts again from 1
/// after a restart, which PROTOCOL.md allows for a server that keeps no history on disk.
public final class InMemoryRoomLogDisk: RoomLogDisk {
    private let history: InMemoryHistoryStore
    private var reservations: [String: Int64] = [:]
    /// Commits so far (tests count transactions with it).
    public private(set) var commits = 0

    public init(receiptLimit: Int = 100_000) {
        history = InMemoryHistoryStore(receiptLimit: receiptLimit)
    }

    public func reservedSequences() -> [String: Int64] { reservations }

    /// Receipts live only as long as the process, and the log's own memory has them: none to load.
    public func storedReceipts() -> [MessageReceipt] { [] }

    public func commit(_ batch: RoomLogBatch, retainPerRoom: Int) {
        commits += 1
        reservations.merge(batch.reservations) { max($0, $1) }
        history.append(events: batch.events, receipts: batch.receipts, retainPerRoom: retainPerRoom)
    }

    public func forget(room: String) {
        reservations[room] = nil
        history.forget(room: room)
    }

    public func events(inRoom room: String, after: Int64?, before: Int64?, limit: Int, newest: Bool) -> [StoredEvent] {
        guard limit > 0 else { return [] }
        guard !newest else { return history.events(inRoom: room, after: after, before: before, limit: limit) }
        // The oldest `limit`: a room holds at most its history length, so reading all of them is bounded.
        return Array(history.events(inRoom: room, after: after, before: before, limit: Int(Int32.max)).prefix(limit))
    }
}
