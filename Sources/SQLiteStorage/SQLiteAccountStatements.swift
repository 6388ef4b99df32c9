import ChatServerCore

/// The statements ``SQLiteAccountStore`` runs, prepared once when the store opens.
final class SQLiteAccountStatements {
    let begin: SQLiteStatement
    let commit: SQLiteStatement
    let rollback: SQLiteStatement
    let selectAccount: SQLiteStatement
    let insertAccount: SQLiteStatement
    let updatePassword: SQLiteStatement
    let selectCertificates: SQLiteStatement
    let insertCertificate: SQLiteStatement
    let deleteCertificate: SQLiteStatement
    let selectRoomSettings: SQLiteStatement
    let ensureRoomSettings: SQLiteStatement
    let updateOwner: SQLiteStatement
    let updateTopic: SQLiteStatement
    let updateInviteOnly: SQLiteStatement
    let updateRegisteredOnly: SQLiteStatement
    let selectOperators: SQLiteStatement
    let insertOperator: SQLiteStatement
    let deleteOperator: SQLiteStatement
    let selectBans: SQLiteStatement
    let insertBan: SQLiteStatement
    let deleteBan: SQLiteStatement
    let selectInvites: SQLiteStatement
    let insertInvite: SQLiteStatement

    init(_ database: SQLiteDatabase) throws(HistoryStoreError) {
        begin = try database.prepare("BEGIN IMMEDIATE")
        commit = try database.prepare("COMMIT")
        rollback = try database.prepare("ROLLBACK")
        selectAccount = try database.prepare("SELECT name, password_hash, created FROM accounts WHERE name_key = ?1")
        insertAccount = try database.prepare("INSERT INTO accounts (name_key, name, password_hash, created) VALUES (?1, ?2, ?3, ?4)")
        updatePassword = try database.prepare("UPDATE accounts SET password_hash = ?2 WHERE name_key = ?1")
        selectCertificates = try database.prepare("SELECT fingerprint FROM account_certificates WHERE name_key = ?1 ORDER BY fingerprint")
        insertCertificate = try database.prepare("INSERT OR IGNORE INTO account_certificates (name_key, fingerprint) VALUES (?1, ?2)")
        deleteCertificate = try database.prepare("DELETE FROM account_certificates WHERE name_key = ?1 AND fingerprint = ?2")
        selectRoomSettings = try database.prepare(
            "SELECT owner, topic, topic_by, topic_ts, invite_only, registered_only FROM room_settings WHERE room = ?1")
        ensureRoomSettings = try database.prepare("INSERT OR IGNORE INTO room_settings (room) VALUES (?1)")
        updateOwner = try database.prepare("UPDATE room_settings SET owner = ?2 WHERE room = ?1")
        updateTopic = try database.prepare("UPDATE room_settings SET topic = ?2, topic_by = ?3, topic_ts = ?4 WHERE room = ?1")
        updateInviteOnly = try database.prepare("UPDATE room_settings SET invite_only = ?2 WHERE room = ?1")
        updateRegisteredOnly = try database.prepare("UPDATE room_settings SET registered_only = ?2 WHERE room = ?1")
        selectOperators = try database.prepare("SELECT name_key, name FROM room_operators WHERE room = ?1")
        insertOperator = try database.prepare("INSERT OR REPLACE INTO room_operators (room, name_key, name) VALUES (?1, ?2, ?3)")
        deleteOperator = try database.prepare("DELETE FROM room_operators WHERE room = ?1 AND name_key = ?2")
        selectBans = try database.prepare(
            "SELECT label, account, peer, address, reason, by, ts FROM bans WHERE scope = ?1 ORDER BY ts")
        insertBan = try database.prepare(
            """
            INSERT OR REPLACE INTO bans (scope, label_key, label, account, peer, address, reason, by, ts)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            """)
        deleteBan = try database.prepare("DELETE FROM bans WHERE scope = ?1 AND label_key = ?2")
        selectInvites = try database.prepare("SELECT kind, value FROM invites WHERE room = ?1")
        insertInvite = try database.prepare("INSERT OR IGNORE INTO invites (room, kind, value) VALUES (?1, ?2, ?3)")
    }
}
