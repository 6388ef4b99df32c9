import ChatServerCore

/// The columns of `events` every read selects, in this order, and the ``StoredEvent`` a row of them is.
enum SQLiteEventRow {
    static let columns = "seq, ts, kind, sender, text, msg_id, account, target, mode, file, file_size, file_sha256, ref, edited, redacted"

    /// The event of the statement's current row (of ``columns``); nil for a kind this code does not know.
    static func event(of row: SQLiteStatement, room: String) -> StoredEvent? {
        guard let kind = row.text(at: 2).flatMap(StoredEventKind.init(rawValue:)) else { return nil }
        return StoredEvent(
            room: room, seq: row.integer(at: 0), ts: row.integer(at: 1), kind: kind,
            sender: row.text(at: 3) ?? "", text: row.text(at: 4) ?? "",
            id: row.optionalText(at: 5), account: row.optionalText(at: 6),
            target: row.optionalText(at: 7), mode: row.optionalText(at: 8),
            file: row.optionalText(at: 9), size: row.optionalInteger(at: 10),
            sha256: row.optionalText(at: 11), ref: row.optionalInteger(at: 12), edited: row.optionalInteger(at: 13),
            redacted: row.integer(at: 14) != 0)
    }

    /// The event's values for `insertEvent` (?1 to ?16).
    static func values(of event: StoredEvent) -> [SQLiteValue] {
        [
            .text(event.room), .integer(event.seq), .integer(event.ts), .text(event.kind.rawValue),
            .text(event.sender), .text(event.text), .optionalText(event.id), .optionalText(event.account),
            .optionalText(event.target), .optionalText(event.mode), .optionalText(event.file),
            .optionalInteger(event.size), .optionalText(event.sha256), .optionalInteger(event.ref),
            .optionalInteger(event.edited), .integer(event.redacted ? 1 : 0),
        ]
    }
}
