import ChatProtocol
import ChatServerCore
import RuntimeCore

/// The search index of the `--db` file (schema version 6, PROTOCOL.md section 15): one row of the
/// FTS5 table `message_words` for each `msg` and `file` that has words, its rowid kept in the
/// event's `search_row`. The words are ``ChatValidation/searchWords(_:)``'s, joined by spaces,
/// so that the index's `ascii` tokenizer (which splits only at ASCII spaces and punctuation and
/// folds only ASCII case) sees each of them as one token, already folded: the index then finds
/// exactly the messages ``ChatValidation/textMatches(_:query:)`` accepts, whatever SQLite's own
/// idea of a word or of case would be.
final class SQLiteMessageWords {
    private let database: SQLiteDatabase
    private let insertWords: SQLiteStatement
    private let deleteWords: SQLiteStatement
    private let deleteRoomWords: SQLiteStatement
    private let setSearchRow: SQLiteStatement
    private let search: SQLiteStatement

    init(_ database: SQLiteDatabase) throws(HistoryStoreError) {
        self.database = database
        insertWords = try database.prepare("INSERT INTO message_words (scope, words) VALUES (?1, ?2)")
        deleteWords = try database.prepare("DELETE FROM message_words WHERE rowid = ?1")
        // Before the history's prune deletes the events: the same ones (all but the room's newest ?2).
        deleteRoomWords = try database.prepare(
            """
            DELETE FROM message_words WHERE rowid IN (
                SELECT search_row FROM events WHERE room = ?1 AND search_row IS NOT NULL
                AND seq <= (SELECT seq FROM events WHERE room = ?1 ORDER BY seq DESC LIMIT 1 OFFSET ?2))
            """)
        setSearchRow = try database.prepare("UPDATE events SET search_row = ?3 WHERE room = ?1 AND seq = ?2")
        search = try database.prepare(
            """
            SELECT e.seq, e.ts, e.kind, e.sender, e.text, e.msg_id, e.account, e.target, e.mode, e.file, e.file_size, e.file_sha256,
                   e.ref, e.edited, e.redacted
            FROM message_words w JOIN events e ON e.search_row = w.rowid AND e.room = ?1
            WHERE message_words MATCH ?2 AND e.redacted = 0
            ORDER BY e.seq DESC LIMIT ?3
            """)
    }

    /// The index's token for a room: hex of its name, one ASCII token whatever the name holds.
    static func scope(of room: String) -> String {
        "r" + Hex.lowercase(room.utf8)
    }

    /// The indexed text of a message: its words, folded, one space between.
    static func words(of text: String) -> String {
        ChatValidation.searchWords(text).joined(separator: " ")
    }

    /// Indexes a stored message (a `msg` or `file`) with these words; nothing for one without any.
    func index(room: String, seq: Int64, text: String) throws(HistoryStoreError) {
        let words = Self.words(of: text)
        guard !words.isEmpty else { return }
        try insertWords.run([.text(Self.scope(of: room)), .text(words)], doing: "indexing a message of room '\(room)'")
        try setSearchRow.run([.text(room), .integer(seq), .integer(database.lastInsertedRow)],
                             doing: "recording a message's index row in room '\(room)'")
    }

    /// Takes a message out of the index (its row, if it has one).
    func remove(row: Int64?, room: String, seq: Int64) throws(HistoryStoreError) {
        guard let row else { return }
        try deleteWords.run([.integer(row)], doing: "taking a message of room '\(room)' out of the index")
        try setSearchRow.run([.text(room), .integer(seq), .null], doing: "forgetting a message's index row in room '\(room)'")
    }

    /// Before the room's events but its newest `keep` are pruned: their index rows go first.
    func removePruned(_ room: String, keeping keep: Int64) throws(HistoryStoreError) {
        try deleteRoomWords.run([.text(room), .integer(keep)], doing: "taking pruned messages of room '\(room)' out of the index")
    }

    /// The newest `limit` messages of `room` holding every one of `query`'s words (from
    /// ``ChatValidation/searchQuery(_:)``), newest first; redacted ones never.
    func messages(inRoom room: String, matching query: [String], limit: Int) throws(HistoryStoreError) -> [StoredEvent] {
        guard limit > 0, !query.isEmpty else { return [] }
        // Each word a quoted string of one token; the words hold no `"` (letters, digits, marks).
        let words = query.map { "\"\($0)\"" }.joined(separator: " AND ")
        let expression = "scope : \"\(Self.scope(of: room))\" AND words : (\(words))"
        search.bind([.text(room), .text(expression), .integer(Int64(limit))])
        defer { search.reset() }
        var found: [StoredEvent] = []
        while try search.step(doing: "searching room '\(room)'") {
            if let event = SQLiteEventRow.event(of: search, room: room) { found.append(event) }
        }
        return found
    }

    /// Schema version 6 on a file of version 5 or older: every stored message indexed.
    static func indexStoredMessages(_ database: SQLiteDatabase) throws(HistoryStoreError) {
        let words = try SQLiteMessageWords(database)
        let messages = try database.prepare("SELECT room, seq, text FROM events WHERE kind IN ('msg', 'file') AND redacted = 0")
        var stored: [(room: String, seq: Int64, text: String)] = []
        messages.bind([])
        while try messages.step(doing: "reading the messages to index") {
            stored.append((messages.text(at: 0) ?? "", messages.integer(at: 1), messages.text(at: 2) ?? ""))
        }
        messages.reset()
        for message in stored { try words.index(room: message.room, seq: message.seq, text: message.text) }
    }
}
