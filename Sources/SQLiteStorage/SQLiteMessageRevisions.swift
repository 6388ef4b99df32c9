import ChatServerCore

/// Applies an `edit` or `redact` to the stored message it names, in the transaction that stores
/// the revision (``MessageRevision`` says what changes): the message's row is rewritten, its
/// index row replaced or removed, and on a redaction each of its edits' texts erased.
final class SQLiteMessageRevisions {
    private let insertEvent: SQLiteStatement
    private let words: SQLiteMessageWords
    private let selectMessage: SQLiteStatement
    private let selectEdits: SQLiteStatement

    init(_ database: SQLiteDatabase, insertEvent: SQLiteStatement, words: SQLiteMessageWords) throws(HistoryStoreError) {
        self.insertEvent = insertEvent
        self.words = words
        selectMessage = try database.prepare("SELECT \(SQLiteEventRow.columns), search_row FROM events WHERE room = ?1 AND seq = ?2")
        selectEdits = try database.prepare("SELECT \(SQLiteEventRow.columns) FROM events WHERE room = ?1 AND kind = 'edit' AND ref = ?2")
    }

    /// The revision's effect on its message; nothing when the message is not stored (pruned, or
    /// never a message) or the revision changes nothing (``MessageRevision/revised(_:by:)``).
    func apply(_ revision: StoredEvent) throws(HistoryStoreError) {
        guard let seq = revision.ref, let (message, row) = try stored(room: revision.room, seq: seq),
              let revised = MessageRevision.revised(message, by: revision) else { return }
        try words.remove(row: row, room: revised.room, seq: seq)
        try insertEvent.run(SQLiteEventRow.values(of: revised), doing: "revising a message in room '\(revised.room)'")
        if !revised.redacted { try words.index(room: revised.room, seq: seq, text: revised.text) }
        guard revision.kind == .redact else { return }
        for edit in try edits(room: revision.room, of: seq) {
            try insertEvent.run(SQLiteEventRow.values(of: MessageRevision.erased(edit)), doing: "erasing an edit in room '\(edit.room)'")
        }
    }

    private func stored(room: String, seq: Int64) throws(HistoryStoreError) -> (StoredEvent, Int64?)? {
        selectMessage.bind([.text(room), .integer(seq)])
        defer { selectMessage.reset() }
        guard try selectMessage.step(doing: "reading message \(seq) of room '\(room)'"),
              let event = SQLiteEventRow.event(of: selectMessage, room: room) else { return nil }
        return (event, selectMessage.optionalInteger(at: 15))
    }

    private func edits(room: String, of seq: Int64) throws(HistoryStoreError) -> [StoredEvent] {
        selectEdits.bind([.text(room), .integer(seq)])
        defer { selectEdits.reset() }
        var edits: [StoredEvent] = []
        while try selectEdits.step(doing: "reading the edits of message \(seq) of room '\(room)'") {
            if let edit = SQLiteEventRow.event(of: selectEdits, room: room) { edits.append(edit) }
        }
        return edits
    }
}
