import ChatServerCore

/// The statements ``SQLiteHistoryStore`` runs, prepared once when the store opens.
final class SQLiteHistoryStatements {
    let begin: SQLiteStatement
    let commit: SQLiteStatement
    let rollback: SQLiteStatement
    let insertEvent: SQLiteStatement
    let pruneEvents: SQLiteStatement
    let insertReceipt: SQLiteStatement
    let pruneReceipts: SQLiteStatement
    let lastSequence: SQLiteStatement
    let selectEvents: SQLiteStatement
    let selectReceipt: SQLiteStatement
    let selectOldestEvents: SQLiteStatement
    let selectReservations: SQLiteStatement
    let raiseReservation: SQLiteStatement
    let selectReceipts: SQLiteStatement

    init(_ database: SQLiteDatabase) throws(HistoryStoreError) {
        // IMMEDIATE takes the write lock at once, so a transaction never fails halfway for
        // want of upgrading a read lock.
        begin = try database.prepare("BEGIN IMMEDIATE")
        commit = try database.prepare("COMMIT")
        rollback = try database.prepare("ROLLBACK")
        insertEvent = try database.prepare(
            """
            INSERT OR REPLACE INTO events (room, seq, ts, kind, sender, text, msg_id, account, target, mode, file, file_size,
                                           file_sha256, ref, edited, redacted)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)
            """)
        // Everything but the room's newest ?2 events, counted, not by seq arithmetic: seqs have a
        // gap after a restart (a reservation's unused rest, docs/PROTOCOL.md), and `seq <= newest -
        // keep` then erased every event from before it once a few new ones were stored.
        pruneEvents = try database.prepare(
            "DELETE FROM events WHERE room = ?1 AND seq <= (SELECT seq FROM events WHERE room = ?1 ORDER BY seq DESC LIMIT 1 OFFSET ?2)")
        insertReceipt = try database.prepare(
            "INSERT OR REPLACE INTO receipts (peer, msg_id, room, seq, ts) VALUES (?1, ?2, ?3, ?4, ?5)")
        // Rowids grow with each insert, so this keeps the newest ?1 receipts.
        pruneReceipts = try database.prepare(
            "DELETE FROM receipts WHERE rowid <= (SELECT max(rowid) FROM receipts) - ?1")
        lastSequence = try database.prepare("SELECT max(seq) FROM events WHERE room = ?1")
        selectEvents = try database.prepare(
            """
            SELECT \(SQLiteEventRow.columns) FROM events
            WHERE room = ?1 AND seq > ?2 AND seq < ?3 ORDER BY seq DESC LIMIT ?4
            """)
        selectReceipt = try database.prepare("SELECT room, seq, ts FROM receipts WHERE peer = ?1 AND msg_id = ?2")
        selectOldestEvents = try database.prepare(
            """
            SELECT \(SQLiteEventRow.columns) FROM events
            WHERE room = ?1 AND seq > ?2 AND seq < ?3 ORDER BY seq LIMIT ?4
            """)
        // A room's events count too: a file written by the synchronous store has events and no reservation.
        selectReservations = try database.prepare(
            """
            SELECT room, max(reserved) FROM (SELECT room, reserved FROM seq_reservations
                                             UNION ALL SELECT room, max(seq) FROM events GROUP BY room)
            GROUP BY room
            """)
        raiseReservation = try database.prepare(
            """
            INSERT INTO seq_reservations (room, reserved) VALUES (?1, ?2)
            ON CONFLICT (room) DO UPDATE SET reserved = max(reserved, excluded.reserved)
            """)
        selectReceipts = try database.prepare("SELECT peer, msg_id, room, seq, ts FROM receipts ORDER BY rowid")
    }
}
