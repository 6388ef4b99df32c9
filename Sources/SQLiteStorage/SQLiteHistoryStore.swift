import CSQLite
import ChatServerCore

/// A history store in one SQLite file, in WAL mode: events, seq and receipts survive a
/// restart and `kill -9` (see ``SQLiteSynchronousMode`` for power loss).
///
/// Each `append` is one transaction, committed before it returns, so the server's `ack`,
/// sent after `append`, is never ahead of the disk. Every failure is thrown as a
/// ``HistoryStoreError`` naming the file.
public final class SQLiteHistoryStore: HistoryStore {
    /// The schema this code writes, kept in `PRAGMA user_version` (``SQLiteSchema``).
    static let schemaVersion = SQLiteSchema.version

    public let path: String
    /// Receipts kept at most; the oldest are deleted first.
    public let receiptLimit: Int

    let database: SQLiteDatabase
    let statements: SQLiteHistoryStatements
    let fileStatements: SQLiteFileStatements
    let words: SQLiteMessageWords
    let revisions: SQLiteMessageRevisions
    let accountPlaces: SQLiteAccountPlaces
    /// Redactions stored since the last ``eraseRedactedRemnants()``: their words may still be in
    /// the index's older segments and their old pages in the write-ahead log.
    var redactionsSinceErasure = 0
    /// When the remnants were last erased (a monotonic clock's seconds; nil: not yet).
    var lastErasure: Double?
    /// The origin of the monotonic seconds ``eraseRedactedRemnantsIfDue(now:)`` is given after a commit.
    let clockOrigin = ContinuousClock.now
    /// Seconds between two erasures of redactions' remnants at most (``eraseRedactedRemnantsIfDue(now:)``).
    public let erasureInterval: Double

    /// Opens or creates the database at `path`.
    public init(path: String, synchronous: SQLiteSynchronousMode = .normal, receiptLimit: Int = 100_000,
                erasureInterval: Double = 10) throws {
        precondition(receiptLimit >= 1, "a store must keep at least one receipt")
        self.path = path
        self.receiptLimit = receiptLimit
        self.erasureInterval = erasureInterval
        database = try SQLiteDatabase(path: path)
        try database.useWriteAheadLog(synchronous: synchronous)
        try SQLiteSchema.migrate(database)
        statements = try SQLiteHistoryStatements(database)
        fileStatements = try SQLiteFileStatements(database)
        words = try SQLiteMessageWords(database)
        revisions = try SQLiteMessageRevisions(database, insertEvent: statements.insertEvent, words: words)
        accountPlaces = try SQLiteAccountPlaces(database)
    }

    public func lastSequence(inRoom room: String) throws -> Int64 {
        let statement = statements.lastSequence
        statement.bind([.text(room)])
        defer { statement.reset() }
        guard try statement.step(doing: "reading the last seq of room '\(room)'") else { return 0 }
        return statement.integer(at: 0)
    }

    public func append(events: [StoredEvent], receipts: [MessageReceipt], retainPerRoom: Int) throws {
        guard !events.isEmpty || !receipts.isEmpty else { return }
        try statements.begin.run([], doing: "beginning a transaction")
        do {
            try insert(events, retainPerRoom: retainPerRoom)
            try insert(receipts)
            try statements.commit.run([], doing: "committing")
        } catch {
            // The transaction may already be gone (SQLite rolls back on some errors): ignore that.
            try? statements.rollback.run([], doing: "rolling back")
            throw error
        }
        eraseRemnantsAfterCommit()
    }

    /// After a commit: the remnants of its redactions, when due. What is committed stays so: a
    /// failed erasure is tried again after a later commit.
    func eraseRemnantsAfterCommit() {
        guard redactionsSinceErasure > 0 else { return }
        _ = try? eraseRedactedRemnantsIfDue(now: Double((ContinuousClock.now - clockOrigin).components.seconds))
    }

    public func events(inRoom room: String, after: Int64?, before: Int64?, limit: Int) throws -> [StoredEvent] {
        try readEvents(statements.selectEvents, room: room, after: after, before: before, limit: limit).reversed()
    }

    /// Up to `limit` events of `room` with `after < seq < before`, in the statement's order.
    func readEvents(_ statement: SQLiteStatement, room: String, after: Int64?, before: Int64?, limit: Int) throws -> [StoredEvent] {
        guard limit > 0 else { return [] }
        statement.bind([.text(room), .integer(after ?? 0), .integer(before ?? Int64.max), .integer(Int64(limit))])
        defer { statement.reset() }
        var events: [StoredEvent] = []
        while try statement.step(doing: "reading events of room '\(room)'") {
            if let event = SQLiteEventRow.event(of: statement, room: room) { events.append(event) }
        }
        return events
    }

    public func receipt(peer: String, id: String) throws -> MessageReceipt? {
        let statement = statements.selectReceipt
        statement.bind([.text(peer), .text(id)])
        defer { statement.reset() }
        guard try statement.step(doing: "reading a message receipt") else { return nil }
        return MessageReceipt(
            peer: peer, id: id,
            room: statement.isNull(at: 0) ? nil : statement.text(at: 0),
            seq: statement.optionalInteger(at: 1),
            ts: statement.integer(at: 2))
    }

    /// Everything stays on disk; the server forgets only its own cache of the room.
    public func forget(room: String) {}

    // MARK: Writing

    func insert(_ events: [StoredEvent], retainPerRoom: Int) throws(HistoryStoreError) {
        var newestSeqByRoom: [String: Int64] = [:]
        for event in events {
            try statements.insertEvent.run(SQLiteEventRow.values(of: event), doing: "storing an event in room '\(event.room)'")
            if event.kind.isMessage {
                try words.index(room: event.room, seq: event.seq, text: event.text)
            } else if event.kind == .edit || event.kind == .redact {
                try revisions.apply(event)
                if event.kind == .redact { redactionsSinceErasure += 1 }
            }
            newestSeqByRoom[event.room] = max(newestSeqByRoom[event.room] ?? event.seq, event.seq)
        }
        let keep = Int64(max(retainPerRoom, 1))
        // A room whose newest seq is within `keep` has at most `keep` events: nothing to prune.
        for (room, newestSeq) in newestSeqByRoom where newestSeq > keep {
            try words.removePruned(room, keeping: keep)
            try statements.pruneEvents.run([.text(room), .integer(keep)], doing: "pruning old events of room '\(room)'")
        }
    }

    func insert(_ receipts: [MessageReceipt]) throws(HistoryStoreError) {
        guard !receipts.isEmpty else { return }
        for receipt in receipts {
            try statements.insertReceipt.run(
                [
                    .text(receipt.peer), .text(receipt.id), .optionalText(receipt.room),
                    .optionalInteger(receipt.seq), .integer(receipt.ts),
                ], doing: "storing a message receipt")
        }
        try statements.pruneReceipts.run([.integer(Int64(receiptLimit))], doing: "pruning old message receipts")
    }
}
