import CSQLite
import ChatServerCore

/// One open SQLite connection. Used from one thread at a time (it is not Sendable), so it is
/// opened with SQLITE_OPEN_NOMUTEX and skips SQLite's own locking.
final class SQLiteDatabase {
    let path: String
    private let handle: OpaquePointer

    init(path: String) throws(HistoryStoreError) {
        self.path = path
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &opened, flags, nil)
        guard status == SQLITE_OK, let opened else {
            let reason = opened.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_close_v2(opened)
            throw HistoryStoreError("cannot open history database '\(path)': \(reason)")
        }
        handle = opened
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit {
        // close_v2 defers the close until every statement is finalized, whatever order
        // Swift releases the statements and this object in.
        sqlite3_close_v2(handle)
    }

    /// WAL mode with the given synchronous setting, and a short busy timeout: the history and the
    /// account store each hold a connection to the file (one thread uses both, one transaction at a
    /// time, so a lock is only ever held by a checkpoint).
    func useWriteAheadLog(synchronous: SQLiteSynchronousMode) throws(HistoryStoreError) {
        // The first statement that reads the file: a file that is not a database fails here.
        let mode = try text(of: "PRAGMA journal_mode=WAL", doing: "switching to WAL mode")
        guard mode?.lowercased() == "wal" else {
            throw HistoryStoreError("history database '\(path)': cannot use WAL mode (journal mode is \(mode ?? "unknown"))")
        }
        try execute("PRAGMA synchronous=\(synchronous.rawValue)", doing: "setting synchronous mode")
        // A redacted message's text is erased, not hidden (PROTOCOL.md section 15): what SQLite
        // frees or shortens is overwritten with zeros rather than left in the file's free space.
        try execute("PRAGMA secure_delete=ON", doing: "turning on secure delete")
        sqlite3_busy_timeout(handle, 1000)
    }

    /// Rows the latest INSERT, UPDATE or DELETE of this connection changed.
    var changes: Int32 { sqlite3_changes(handle) }

    /// The rowid of the latest row this connection inserted.
    var lastInsertedRow: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Runs SQL that returns no rows we need, e.g. a PRAGMA or CREATE TABLE.
    func execute(_ sql: String, doing what: String) throws(HistoryStoreError) {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard status == SQLITE_OK else {
            let reason = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(status))
            throw error(what, reason: reason)
        }
    }

    func prepare(_ sql: String) throws(HistoryStoreError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else {
            throw error("preparing '\(sql)'")
        }
        return SQLiteStatement(statement, database: self)
    }

    /// The first column of the first row of a query, as text (for PRAGMA answers).
    func text(of sql: String, doing what: String) throws(HistoryStoreError) -> String? {
        let statement = try prepare(sql)
        guard try statement.step(doing: what) else { return nil }
        return statement.text(at: 0)
    }

    /// An error naming the file, the operation and SQLite's latest message.
    func error(_ what: String, reason: String? = nil) -> HistoryStoreError {
        HistoryStoreError("history database '\(path)': \(what) failed: \(reason ?? String(cString: sqlite3_errmsg(handle)))")
    }
}
