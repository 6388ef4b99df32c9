/// The statements of the file tables (``SQLiteHistoryStore`` as a ``FileCatalog``), prepared
/// once when the store opens.
final class SQLiteFileStatements {
    /// The columns of a `files` row in the order ``SQLiteHistoryStore`` reads them.
    static let fileColumns = """
        id, sha256, size, name, room, seq, ts, sender, sender_account, uploader_peer, upload_id, owner, recipient,
        recipient_account, recipient_peer
        """
    static let partialColumns = "key, peer, upload_id, owner, room, recipient, name, size, sha256, updated"

    let insertFile: SQLiteStatement
    let selectFile: SQLiteStatement
    let selectUpload: SQLiteStatement
    let storedBytes: SQLiteStatement
    let hasContent: SQLiteStatement
    let bytesOwned: SQLiteStatement
    let oldestFile: SQLiteStatement
    let deleteFile: SQLiteStatement
    let savePartial: SQLiteStatement
    let selectPartial: SQLiteStatement
    let deletePartial: SQLiteStatement
    let stalePartials: SQLiteStatement
    let partialBytes: SQLiteStatement

    init(_ database: SQLiteDatabase) throws(HistoryStoreError) {
        let file = Self.fileColumns
        let partial = Self.partialColumns
        insertFile = try database.prepare(
            "INSERT INTO files (\(file)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)")
        selectFile = try database.prepare("SELECT \(file) FROM files WHERE id = ?1")
        selectUpload = try database.prepare("SELECT \(file) FROM files WHERE uploader_peer = ?1 AND upload_id = ?2")
        // Distinct content: files with the same SHA-256 share their bytes.
        storedBytes = try database.prepare("SELECT coalesce(sum(size), 0) FROM (SELECT max(size) AS size FROM files GROUP BY sha256)")
        hasContent = try database.prepare("SELECT 1 FROM files WHERE sha256 = ?1 LIMIT 1")
        bytesOwned = try database.prepare("SELECT coalesce(sum(size), 0) FROM files WHERE owner = ?1")
        oldestFile = try database.prepare("SELECT \(file) FROM files ORDER BY ts, rowid LIMIT 1")
        deleteFile = try database.prepare("DELETE FROM files WHERE id = ?1 RETURNING sha256")
        savePartial = try database.prepare(
            "INSERT OR REPLACE INTO partial_uploads (\(partial)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)")
        selectPartial = try database.prepare("SELECT \(partial) FROM partial_uploads WHERE peer = ?1 AND upload_id = ?2")
        deletePartial = try database.prepare("DELETE FROM partial_uploads WHERE key = ?1")
        stalePartials = try database.prepare("SELECT \(partial) FROM partial_uploads WHERE updated < ?1 ORDER BY updated")
        partialBytes = try database.prepare(
            "SELECT coalesce(sum(size), 0) FROM partial_uploads WHERE (?1 IS NULL OR owner = ?1) AND key IS NOT ?2")
    }
}
