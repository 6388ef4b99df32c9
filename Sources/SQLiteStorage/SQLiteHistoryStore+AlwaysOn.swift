import ChatServerCore

/// What version 1.2 keeps in the `--db` file beside the room log (schema version 6): the search
/// index, the erasure of redacted text, read markers and the rooms an account keeps.
extension SQLiteHistoryStore {
    /// The newest `limit` messages of `room` (`msg` and `file`, by their latest text) holding
    /// every word of `query` (from ``ChatValidation/searchQuery(_:)``), newest first; never a
    /// redacted one (PROTOCOL.md sections 15 and 17).
    public func messages(inRoom room: String, matching query: [String], limit: Int) throws -> [StoredEvent] {
        try words.messages(inRoom: room, matching: query, limit: limit)
    }

    /// Erases what redactions leave behind beyond the rewritten rows: the index's older segments
    /// still list the words of a message taken out of it until they are merged (`optimize`
    /// merges them all), and the write-ahead log holds the pages as they were until a checkpoint
    /// copies them back (`TRUNCATE` then empties it). Costs a rewrite of the whole index, so the
    /// store does it at most once per ``erasureInterval`` (``eraseRedactedRemnantsIfDue(now:)``).
    public func eraseRedactedRemnants() throws {
        try database.execute("INSERT INTO message_words (message_words) VALUES ('optimize')", doing: "merging the search index")
        try database.execute("PRAGMA wal_checkpoint(TRUNCATE)", doing: "emptying the write-ahead log")
        redactionsSinceErasure = 0
    }

    /// Whether a redaction's remnants wait for ``eraseRedactedRemnants()``.
    public var hasRedactedRemnants: Bool { redactionsSinceErasure > 0 }

    /// Erases the remnants of the redactions stored so far when there are some and the last
    /// erasure was ``erasureInterval`` ago or more; `now` in seconds of a monotonic clock.
    /// Returns whether it erased.
    @discardableResult
    public func eraseRedactedRemnantsIfDue(now: Double) throws -> Bool {
        guard redactionsSinceErasure > 0 else { return false }
        if let last = lastErasure, now - last < erasureInterval { return false }
        try eraseRedactedRemnants()
        lastErasure = now
        return true
    }

    // MARK: Read markers and kept rooms (sections 13, 14 and 17)

    /// The account's read markers: room name, or `@` and the other account's key for a
    /// conversation (``conversationTarget(with:)``), to the highest seq read.
    public func readMarkers(ofAccount account: String) throws -> [String: Int64] {
        try accountPlaces.markers(of: account)
    }

    /// Moves a read marker forward; false (nothing stored) when it was at `read` or beyond.
    public func raiseReadMarker(ofAccount account: String, in target: String, to read: Int64) throws -> Bool {
        try accountPlaces.raise(account, target: target, to: read) { database.changes }
    }

    /// A conversation's key among an account's read markers: `@` cannot start a room name.
    public static func conversationTarget(with account: String) -> String { "@" + account }

    /// The rooms the account keeps, by name.
    public func keptRooms(ofAccount account: String) throws -> [String] {
        try accountPlaces.rooms(of: account)
    }

    public func keepRoom(_ room: String, forAccount account: String) throws {
        try accountPlaces.keep(room, for: account)
    }

    public func dropRoom(_ room: String, forAccount account: String) throws {
        try accountPlaces.drop(room, for: account)
    }
}
