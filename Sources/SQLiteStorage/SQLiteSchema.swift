import ChatServerCore

/// The tables of the `--db` file and their migrations, kept in `PRAGMA user_version`. Both SQLite
/// stores run ``migrate(_:)`` when they open the file; it is a no-op once the file is current.
///
/// - Version 1: `events` and `receipts` (the history).
/// - Version 2: `events` gains `account`, `target` and `mode` (who sent an event, whom a moderation
///   event names, a mode change); `accounts`, `account_certificates`, `room_settings`,
///   `room_operators`, `bans` and `invites` (PROTOCOL.md sections 7 and 8). A version 1 file keeps
///   every event and receipt; its old events have no account.
/// - Version 3: `events` gains `file`, `file_size` and `file_sha256` (the `file` room event);
///   `files` and `partial_uploads` (PROTOCOL.md section 9).
/// - Version 4: `files` and `partial_uploads` gain the uploader's `address` (per-address quotas,
///   eviction by party), `partial_uploads` the bytes it is `charged` (its size until interrupted).
/// - Version 5: `seq_reservations`, each room's highest seq that may have been handed out (the
///   local room log delivers an event before its commit: docs/PROTOCOL.md, "One server's room
///   log"), filled from `events` for the rooms a file has.
/// - Version 6 (protocol version 1.2): `events` gains `ref` (the message a revision or a reply
///   names), `edited` (a message's latest edit's `ts`), `redacted` and `search_row` (its row in
///   `message_words`, the FTS5 index of the words of every `msg` and `file`, filled here for the
///   messages a file has); `read_markers` (an account's read position in a room or conversation)
///   and `account_rooms` (the rooms an account keeps while offline).
enum SQLiteSchema {
    static let version = 6

    static func migrate(_ database: SQLiteDatabase) throws(HistoryStoreError) {
        // IMMEDIATE: the version is read and raised under the write lock, so two stores opening
        // the file at once migrate it once.
        try database.execute("BEGIN IMMEDIATE", doing: "starting the schema migration")
        do throws(HistoryStoreError) {
            let found = Int(try database.text(of: "PRAGMA user_version", doing: "reading the schema version") ?? "0") ?? 0
            guard found <= version else {
                throw HistoryStoreError("database '\(database.path)' has schema version \(found); this server knows up to \(version)")
            }
            if found < 1 { try database.execute(versionOne, doing: "creating the history tables") }
            if found < 2 { try database.execute(versionTwo, doing: "adding the account and moderation tables") }
            if found < 3 { try database.execute(versionThree, doing: "adding the file tables") }
            if found < 4 { try database.execute(versionFour, doing: "adding the uploaders' addresses") }
            if found < 5 { try database.execute(versionFive, doing: "adding the seq reservations") }
            if found < 6 {
                try database.execute(versionSix, doing: "adding revisions, the search index, read markers and account rooms")
                try SQLiteMessageWords.indexStoredMessages(database)
            }
            if found < version { try database.execute("PRAGMA user_version = \(version)", doing: "raising the schema version") }
            try database.execute("COMMIT", doing: "committing the schema migration")
        } catch {
            try? database.execute("ROLLBACK", doing: "rolling back the schema migration")
            throw error
        }
    }

    private static let versionOne = """
        CREATE TABLE IF NOT EXISTS events (
            room TEXT NOT NULL, seq INTEGER NOT NULL, ts INTEGER NOT NULL, kind TEXT NOT NULL,
            sender TEXT NOT NULL, text TEXT NOT NULL, msg_id TEXT,
            PRIMARY KEY (room, seq)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS receipts (
            peer TEXT NOT NULL, msg_id TEXT NOT NULL, room TEXT, seq INTEGER, ts INTEGER NOT NULL,
            UNIQUE (peer, msg_id)
        );
        """

    private static let versionTwo = """
        ALTER TABLE events ADD COLUMN account TEXT;
        ALTER TABLE events ADD COLUMN target TEXT;
        ALTER TABLE events ADD COLUMN mode TEXT;
        CREATE TABLE accounts (
            name_key TEXT PRIMARY KEY, name TEXT NOT NULL, password_hash TEXT, created INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE account_certificates (
            name_key TEXT NOT NULL, fingerprint TEXT NOT NULL, PRIMARY KEY (name_key, fingerprint)
        ) WITHOUT ROWID;
        CREATE TABLE room_settings (
            room TEXT PRIMARY KEY, owner TEXT, topic TEXT, topic_by TEXT, topic_ts INTEGER,
            invite_only INTEGER NOT NULL DEFAULT 0, registered_only INTEGER NOT NULL DEFAULT 0
        ) WITHOUT ROWID;
        CREATE TABLE room_operators (
            room TEXT NOT NULL, name_key TEXT NOT NULL, name TEXT NOT NULL, PRIMARY KEY (room, name_key)
        ) WITHOUT ROWID;
        CREATE TABLE bans (
            scope TEXT NOT NULL, label_key TEXT NOT NULL, label TEXT NOT NULL, account TEXT, peer TEXT, address TEXT,
            reason TEXT NOT NULL, by TEXT NOT NULL, ts INTEGER NOT NULL, PRIMARY KEY (scope, label_key)
        ) WITHOUT ROWID;
        CREATE TABLE invites (
            room TEXT NOT NULL, kind TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (room, kind, value)
        ) WITHOUT ROWID;
        """

    private static let versionThree = """
        ALTER TABLE events ADD COLUMN file TEXT;
        ALTER TABLE events ADD COLUMN file_size INTEGER;
        ALTER TABLE events ADD COLUMN file_sha256 TEXT;
        CREATE TABLE files (
            id TEXT PRIMARY KEY, sha256 TEXT NOT NULL, size INTEGER NOT NULL, name TEXT NOT NULL, room TEXT, seq INTEGER,
            ts INTEGER NOT NULL, sender TEXT NOT NULL, sender_account TEXT, uploader_peer TEXT NOT NULL,
            upload_id TEXT NOT NULL, owner TEXT NOT NULL, recipient TEXT, recipient_account TEXT, recipient_peer TEXT,
            UNIQUE (uploader_peer, upload_id)
        );
        CREATE INDEX files_by_content ON files (sha256);
        CREATE INDEX files_by_owner ON files (owner);
        CREATE INDEX files_by_age ON files (ts);
        CREATE TABLE partial_uploads (
            key TEXT PRIMARY KEY, peer TEXT NOT NULL, upload_id TEXT NOT NULL, owner TEXT NOT NULL, room TEXT,
            recipient TEXT, name TEXT NOT NULL, size INTEGER NOT NULL, sha256 TEXT NOT NULL, updated INTEGER NOT NULL,
            UNIQUE (peer, upload_id)
        ) WITHOUT ROWID;
        """

    /// The party expression is ``FileOwner/party(owner:address:)``'s, indexed for eviction.
    static let party = "(CASE WHEN address != '' THEN 'address:' || address WHEN substr(owner, 1, 5) = 'peer:' THEN 'guests' ELSE owner END)"

    private static let versionFour = """
        ALTER TABLE files ADD COLUMN address TEXT NOT NULL DEFAULT '';
        ALTER TABLE partial_uploads ADD COLUMN address TEXT NOT NULL DEFAULT '';
        ALTER TABLE partial_uploads ADD COLUMN charged INTEGER NOT NULL DEFAULT 0;
        UPDATE partial_uploads SET charged = size;
        CREATE INDEX files_by_address ON files (address);
        CREATE INDEX files_by_party ON files (\(party), ts);
        CREATE INDEX partial_uploads_by_owner ON partial_uploads (owner);
        CREATE INDEX partial_uploads_by_address ON partial_uploads (address);
        """

    /// The index's `scope` is the room (``SQLiteMessageWords/scope(of:)``) and `words` the
    /// message's words as `search` compares them, one token each for the `ascii` tokenizer
    /// (``SQLiteMessageWords``): the index finds exactly what ``ChatValidation/textMatches(_:query:)`` does.
    private static let versionSix = """
        ALTER TABLE events ADD COLUMN ref INTEGER;
        ALTER TABLE events ADD COLUMN edited INTEGER;
        ALTER TABLE events ADD COLUMN redacted INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE events ADD COLUMN search_row INTEGER;
        CREATE VIRTUAL TABLE message_words USING fts5(scope, words, tokenize = 'ascii');
        CREATE TABLE read_markers (
            account_key TEXT NOT NULL, target TEXT NOT NULL, read INTEGER NOT NULL, PRIMARY KEY (account_key, target)
        ) WITHOUT ROWID;
        CREATE TABLE account_rooms (account_key TEXT NOT NULL, room TEXT NOT NULL, PRIMARY KEY (account_key, room)) WITHOUT ROWID;
        """

    private static let versionFive = """
        CREATE TABLE seq_reservations (room TEXT PRIMARY KEY, reserved INTEGER NOT NULL) WITHOUT ROWID;
        INSERT INTO seq_reservations (room, reserved) SELECT room, max(seq) FROM events GROUP BY room;
        """
}
