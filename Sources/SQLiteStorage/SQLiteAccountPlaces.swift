import ChatServerCore

/// What the `--db` file keeps of an account between its connections (schema version 6, PROTOCOL.md
/// sections 13 and 14): its read markers, by room or conversation, and the rooms it keeps.
/// Accounts are named by their key (``ChatValidation/nickKey(_:)`` of the name).
final class SQLiteAccountPlaces {
    private let selectMarkers: SQLiteStatement
    private let raiseMarker: SQLiteStatement
    private let selectRooms: SQLiteStatement
    private let insertRoom: SQLiteStatement
    private let deleteRoom: SQLiteStatement

    init(_ database: SQLiteDatabase) throws(HistoryStoreError) {
        selectMarkers = try database.prepare("SELECT target, read FROM read_markers WHERE account_key = ?1")
        // Forward only: a marker at or above the new value stays (section 17, "Read markers").
        raiseMarker = try database.prepare(
            """
            INSERT INTO read_markers (account_key, target, read) VALUES (?1, ?2, ?3)
            ON CONFLICT (account_key, target) DO UPDATE SET read = excluded.read WHERE excluded.read > read
            """)
        selectRooms = try database.prepare("SELECT room FROM account_rooms WHERE account_key = ?1 ORDER BY room")
        insertRoom = try database.prepare("INSERT OR IGNORE INTO account_rooms (account_key, room) VALUES (?1, ?2)")
        deleteRoom = try database.prepare("DELETE FROM account_rooms WHERE account_key = ?1 AND room = ?2")
    }

    func markers(of account: String) throws(HistoryStoreError) -> [String: Int64] {
        selectMarkers.bind([.text(account)])
        defer { selectMarkers.reset() }
        var markers: [String: Int64] = [:]
        while try selectMarkers.step(doing: "reading the read markers of '\(account)'") {
            if let target = selectMarkers.text(at: 0) { markers[target] = selectMarkers.integer(at: 1) }
        }
        return markers
    }

    /// Moves the marker forward; false when it was at `read` or beyond already (nothing stored).
    func raise(_ account: String, target: String, to read: Int64, changes: () -> Int32) throws(HistoryStoreError) -> Bool {
        try raiseMarker.run([.text(account), .text(target), .integer(read)], doing: "storing a read marker of '\(account)'")
        return changes() > 0
    }

    func rooms(of account: String) throws(HistoryStoreError) -> [String] {
        selectRooms.bind([.text(account)])
        defer { selectRooms.reset() }
        var rooms: [String] = []
        while try selectRooms.step(doing: "reading the rooms of '\(account)'") {
            if let room = selectRooms.text(at: 0) { rooms.append(room) }
        }
        return rooms
    }

    func keep(_ room: String, for account: String) throws(HistoryStoreError) {
        try insertRoom.run([.text(account), .text(room)], doing: "keeping room '\(room)' for '\(account)'")
    }

    func drop(_ room: String, for account: String) throws(HistoryStoreError) {
        try deleteRoom.run([.text(account), .text(room)], doing: "dropping room '\(room)' of '\(account)'")
    }
}
