import CSQLite

/// A history store in one SQLite file, in WAL mode: events, seq and receipts survive a
/// restart and `kill -9` (see ``SQLiteSynchronousMode`` for power loss).
///
/// Each `append` is one transaction, committed before it returns, so the server's `ack`,
/// sent after `append`, is never ahead of the disk. Every failure is thrown as a
/// ``HistoryStoreError`` naming the file.
public final class SQLiteHistoryStore: HistoryStore {
    /// The schema this code writes, kept in `PRAGMA user_version`.
    static let schemaVersion = 1

    public let path: String
    /// Receipts kept at most; the oldest are deleted first.
    public let receiptLimit: Int

    private let database: SQLiteDatabase
    private let statements: SQLiteHistoryStatements

    /// Opens or creates the database at `path`.
    public init(path: String, synchronous: SQLiteSynchronousMode = .normal, receiptLimit: Int = 100_000) throws {
        precondition(receiptLimit >= 1, "a store must keep at least one receipt")
        self.path = path
        self.receiptLimit = receiptLimit
        database = try SQLiteDatabase(path: path)
        try Self.configure(database, synchronous: synchronous)
        try Self.createSchema(in: database)
        statements = try SQLiteHistoryStatements(database)
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
    }

    public func events(inRoom room: String, after: Int64?, before: Int64?, limit: Int) throws -> [StoredEvent] {
        guard limit > 0 else { return [] }
        let statement = statements.selectEvents
        statement.bind([.text(room), .integer(after ?? 0), .integer(before ?? Int64.max), .integer(Int64(limit))])
        defer { statement.reset() }
        var newestFirst: [StoredEvent] = []
        while try statement.step(doing: "reading events of room '\(room)'") {
            guard let kind = statement.text(at: 2).flatMap(StoredEventKind.init(rawValue:)) else { continue }
            newestFirst.append(
                StoredEvent(
                    room: room, seq: statement.integer(at: 0), ts: statement.integer(at: 1), kind: kind,
                    sender: statement.text(at: 3) ?? "", text: statement.text(at: 4) ?? "",
                    id: statement.isNull(at: 5) ? nil : statement.text(at: 5)))
        }
        return newestFirst.reversed()
    }

    public func receipt(peer: String, id: String) throws -> MessageReceipt? {
        let statement = statements.selectReceipt
        statement.bind([.text(peer), .text(id)])
        defer { statement.reset() }
        guard try statement.step(doing: "reading a message receipt") else { return nil }
        return MessageReceipt(
            peer: peer, id: id,
            room: statement.isNull(at: 0) ? nil : statement.text(at: 0),
            seq: statement.isNull(at: 1) ? nil : statement.integer(at: 1),
            ts: statement.integer(at: 2))
    }

    /// Everything stays on disk; the server forgets only its own cache of the room.
    public func forget(room: String) {}

    // MARK: Writing

    private func insert(_ events: [StoredEvent], retainPerRoom: Int) throws(HistoryStoreError) {
        var newestSeqByRoom: [String: Int64] = [:]
        for event in events {
            try statements.insertEvent.run(
                [
                    .text(event.room), .integer(event.seq), .integer(event.ts), .text(event.kind.rawValue),
                    .text(event.sender), .text(event.text), .optionalText(event.id),
                ], doing: "storing an event in room '\(event.room)'")
            newestSeqByRoom[event.room] = max(newestSeqByRoom[event.room] ?? event.seq, event.seq)
        }
        let keep = Int64(max(retainPerRoom, 1))
        for (room, newestSeq) in newestSeqByRoom where newestSeq > keep {
            try statements.pruneEvents.run(
                [.text(room), .integer(newestSeq - keep)], doing: "pruning old events of room '\(room)'")
        }
    }

    private func insert(_ receipts: [MessageReceipt]) throws(HistoryStoreError) {
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

    // MARK: Opening

    private static func configure(_ database: SQLiteDatabase, synchronous: SQLiteSynchronousMode) throws(HistoryStoreError) {
        // The first statement that reads the file: a file that is not a database fails here.
        let mode = try database.text(of: "PRAGMA journal_mode=WAL", doing: "switching to WAL mode")
        guard mode?.lowercased() == "wal" else {
            throw HistoryStoreError("history database '\(database.path)': cannot use WAL mode (journal mode is \(mode ?? "unknown"))")
        }
        try database.execute("PRAGMA synchronous=\(synchronous.rawValue)", doing: "setting synchronous mode")
    }

    private static func createSchema(in database: SQLiteDatabase) throws(HistoryStoreError) {
        let version = Int(try database.text(of: "PRAGMA user_version", doing: "reading the schema version") ?? "0") ?? 0
        guard version <= schemaVersion else {
            throw HistoryStoreError(
                "history database '\(database.path)' has schema version \(version); this server knows up to \(schemaVersion)")
        }
        try database.execute(
            """
            BEGIN IMMEDIATE;
            CREATE TABLE IF NOT EXISTS events (
                room TEXT NOT NULL, seq INTEGER NOT NULL, ts INTEGER NOT NULL, kind TEXT NOT NULL,
                sender TEXT NOT NULL, text TEXT NOT NULL, msg_id TEXT,
                PRIMARY KEY (room, seq)
            ) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS receipts (
                peer TEXT NOT NULL, msg_id TEXT NOT NULL, room TEXT, seq INTEGER, ts INTEGER NOT NULL,
                UNIQUE (peer, msg_id)
            );
            PRAGMA user_version = \(schemaVersion);
            COMMIT;
            """, doing: "creating the schema")
    }
}
