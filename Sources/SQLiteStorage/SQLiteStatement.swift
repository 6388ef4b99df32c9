import CSQLite
import ChatServerCore

/// A prepared statement, reused across calls: bind, step, reset.
final class SQLiteStatement {
    private let handle: OpaquePointer
    /// Keeps the connection open while the statement exists and names it in errors.
    private let database: SQLiteDatabase

    init(_ handle: OpaquePointer, database: SQLiteDatabase) {
        self.handle = handle
        self.database = database
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Clears the previous run's state and bindings, then binds `values` to ?1, ?2, ...
    func bind(_ values: [SQLiteValue]) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case .integer(let integer): sqlite3_bind_int64(handle, index, integer)
            case .text(let text): sqlite3_bind_text(handle, index, text, -1, csqlite_transient())
            case .null: sqlite3_bind_null(handle, index)
            }
        }
    }

    /// Advances to the next row: true while there is one, false when done.
    func step(doing what: String) throws(HistoryStoreError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW:
            return true
        case SQLITE_DONE:
            return false
        default:
            let error = database.error(what)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Runs a statement that returns no rows.
    func run(_ values: [SQLiteValue], doing what: String) throws(HistoryStoreError) {
        bind(values)
        defer { sqlite3_reset(handle) }
        while try step(doing: what) {}
    }

    func integer(at column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    func isNull(at column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    func text(at column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    func optionalText(at column: Int32) -> String? {
        isNull(at: column) ? nil : text(at: column)
    }

    func optionalInteger(at column: Int32) -> Int64? {
        isNull(at: column) ? nil : integer(at: column)
    }

    /// Ends a read early, so the statement holds no read lock until its next use.
    func reset() {
        sqlite3_reset(handle)
    }
}
