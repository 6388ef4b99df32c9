import ChatServerCore
import LocalStore

/// The `--db` file as the local room log's disk, on the ``LocalStore/StoreWorker``'s thread:
/// a worker round's events, receipts and seq reservations in one transaction (schema version 6).
extension SQLiteHistoryStore: RoomLogDisk {
    public func reservedSequences() throws -> [String: Int64] {
        let statement = statements.selectReservations
        statement.bind([])
        defer { statement.reset() }
        var reserved: [String: Int64] = [:]
        while try statement.step(doing: "reading the seq reservations") {
            if let room = statement.text(at: 0) { reserved[room] = statement.integer(at: 1) }
        }
        return reserved
    }

    public func storedReceipts() throws -> [MessageReceipt] {
        let statement = statements.selectReceipts
        statement.bind([])
        defer { statement.reset() }
        var receipts: [MessageReceipt] = []
        while try statement.step(doing: "reading the message receipts") {
            receipts.append(MessageReceipt(peer: statement.text(at: 0) ?? "", id: statement.text(at: 1) ?? "",
                                           room: statement.optionalText(at: 2), seq: statement.optionalInteger(at: 3),
                                           ts: statement.integer(at: 4)))
        }
        return receipts
    }

    public func commit(_ batch: RoomLogBatch, retainPerRoom: Int) throws {
        guard !batch.isEmpty else { return }
        try statements.begin.run([], doing: "beginning a transaction")
        do {
            for (room, reserved) in batch.reservations {
                try statements.raiseReservation.run([.text(room), .integer(reserved)], doing: "reserving seqs of room '\(room)'")
            }
            try insert(batch.events, retainPerRoom: retainPerRoom)
            try insert(batch.receipts)
            try statements.commit.run([], doing: "committing")
        } catch {
            try? statements.rollback.run([], doing: "rolling back")
            throw error
        }
        eraseRemnantsAfterCommit()
    }

    public func events(inRoom room: String, after: Int64?, before: Int64?, limit: Int, newest: Bool) throws -> [StoredEvent] {
        guard !newest else { return try events(inRoom: room, after: after, before: before, limit: limit) }
        return try readEvents(statements.selectOldestEvents, room: room, after: after, before: before, limit: limit)
    }
}
