import ChatServerCore

/// The statements of the file tables (``SQLiteHistoryStore`` as a ``FileCatalog``), prepared
/// once when the store opens.
final class SQLiteFileStatements {
    /// The columns of a `files` row in the order ``SQLiteHistoryStore`` reads them.
    static let fileColumns = """
        id, sha256, size, name, room, seq, ts, sender, sender_account, uploader_peer, upload_id, owner, recipient,
        recipient_account, recipient_peer, address
        """
    static let partialColumns = "key, peer, upload_id, owner, room, recipient, name, size, sha256, updated, address, charged"

    let insertFile: SQLiteStatement
    let selectFile: SQLiteStatement
    let selectUpload: SQLiteStatement
    let hasContent: SQLiteStatement
    let deleteFile: SQLiteStatement
    let updateFileSeq: SQLiteStatement
    let savePartial: SQLiteStatement
    let selectPartial: SQLiteStatement
    let deletePartial: SQLiteStatement
    let stalePartials: SQLiteStatement
    /// Stored bytes of everyone (distinct content), of an owner, of an address.
    let storedBytes: SQLiteStatement
    let bytesOwned: SQLiteStatement
    let bytesFromAddress: SQLiteStatement
    /// Charged bytes and count of partial uploads: all, an owner's, an address's; but one key.
    let partialUsage: SQLiteStatement
    let ownerPartialUsage: SQLiteStatement
    let addressPartialUsage: SQLiteStatement
    /// The party eviction takes from next with what it holds, and that party's oldest file; the
    /// bytes of the newcomers to a file and their oldest file (``FileEvictionRule``).
    let largestParty: SQLiteStatement
    let oldestOfParty: SQLiteStatement
    let newcomersHeld: SQLiteStatement
    let oldestNewcomer: SQLiteStatement

    init(_ database: SQLiteDatabase) throws(HistoryStoreError) {
        let file = Self.fileColumns
        let partial = Self.partialColumns
        let party = SQLiteSchema.party
        insertFile = try database.prepare(
            "INSERT INTO files (\(file)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)")
        selectFile = try database.prepare("SELECT \(file) FROM files WHERE id = ?1")
        selectUpload = try database.prepare("SELECT \(file) FROM files WHERE uploader_peer = ?1 AND upload_id = ?2")
        hasContent = try database.prepare("SELECT 1 FROM files WHERE sha256 = ?1 LIMIT 1")
        deleteFile = try database.prepare("DELETE FROM files WHERE id = ?1 RETURNING sha256")
        updateFileSeq = try database.prepare("UPDATE files SET seq = ?2 WHERE id = ?1")
        savePartial = try database.prepare(
            "INSERT OR REPLACE INTO partial_uploads (\(partial)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)")
        selectPartial = try database.prepare("SELECT \(partial) FROM partial_uploads WHERE peer = ?1 AND upload_id = ?2")
        deletePartial = try database.prepare("DELETE FROM partial_uploads WHERE key = ?1")
        stalePartials = try database.prepare("SELECT \(partial) FROM partial_uploads WHERE updated < ?1 ORDER BY updated")
        // Distinct content: files with the same SHA-256 share their bytes.
        storedBytes = try database.prepare("SELECT coalesce(sum(size), 0) FROM (SELECT max(size) AS size FROM files GROUP BY sha256)")
        bytesOwned = try database.prepare("SELECT coalesce(sum(size), 0) FROM files WHERE owner = ?1")
        bytesFromAddress = try database.prepare("SELECT coalesce(sum(size), 0) FROM files WHERE address = ?1")
        partialUsage = try database.prepare("SELECT coalesce(sum(charged), 0), count(*) FROM partial_uploads WHERE key IS NOT ?1")
        ownerPartialUsage = try database.prepare(
            "SELECT coalesce(sum(charged), 0), count(*) FROM partial_uploads WHERE owner = ?2 AND key IS NOT ?1")
        addressPartialUsage = try database.prepare(
            "SELECT coalesce(sum(charged), 0), count(*) FROM partial_uploads WHERE address = ?2 AND key IS NOT ?1")
        largestParty = try database.prepare("""
            SELECT party, weight FROM (SELECT \(party) AS party, sum(size) + (CASE WHEN \(party) = ?1 THEN ?2 ELSE 0 END) AS weight,
            min(ts) AS oldest FROM files GROUP BY 1) ORDER BY weight DESC, oldest LIMIT 1
            """)
        oldestOfParty = try database.prepare("SELECT \(file) FROM files WHERE \(party) = ?1 ORDER BY ts, rowid LIMIT 1")
        // Exempt parties (no address) whose oldest file is newer than ?1, the guests' always; the
        // uploader ?2 counts ?3 more when it is one of them and holds nothing yet.
        let guests = FileOwner.exemptGuests
        let prefix = FileEvictionRule.addressPrefix
        newcomersHeld = try database.prepare("""
            SELECT coalesce(sum(held), 0) + (CASE WHEN substr(?2, 1, \(prefix.count)) != '\(prefix)'
              AND (SELECT count(*) FROM files WHERE address = '' AND \(party) = ?2) = 0 THEN ?3 ELSE 0 END)
            FROM (SELECT \(party) AS party, sum(size) + (CASE WHEN \(party) = ?2 THEN ?3 ELSE 0 END) AS held, min(ts) AS since
                  FROM files WHERE address = '' GROUP BY 1)
            WHERE party = '\(guests)' OR since > ?1
            """)
        oldestNewcomer = try database.prepare("""
            SELECT \(file) FROM files WHERE address = '' AND (\(party) = '\(guests)'
              OR \(party) IN (SELECT \(party) FROM files WHERE address = '' GROUP BY 1 HAVING min(ts) > ?1))
            ORDER BY ts, rowid LIMIT 1
            """)
    }
}
