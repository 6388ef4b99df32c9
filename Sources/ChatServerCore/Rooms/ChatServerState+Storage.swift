/// Seq assignment and the calls into the history store. A store failure becomes a `.log`
/// at error level: the server keeps serving, and the caller decides what may still happen.
extension ChatServerState {
    /// The room's next seq (a local store), counted as handed out.
    func nextSequence(inRoom room: String, into out: inout [ServerAction]) -> Int64 {
        let next = currentSequence(inRoom: room, into: &out) + 1
        lastSequenceByRoom[room] = next
        return next
    }

    /// The last seq handed out in `room`, 0 before its first event.
    func currentSequence(inRoom room: String, into out: inout [ServerAction]) -> Int64 {
        if let cached = lastSequenceByRoom[room] { return cached }
        do {
            let stored = try history.lastSequence(inRoom: room)
            lastSequenceByRoom[room] = stored
            return stored
        } catch {
            out.append(.log(.error, "history read failed", ["room": room, "error": "\(error)"]))
            return 0
        }
    }

    /// Stores events and receipts in one transaction; false if the store failed.
    func persist(_ events: [StoredEvent], receipts: [MessageReceipt] = [], into out: inout [ServerAction]) -> Bool {
        do {
            try history.append(events: events, receipts: receipts, retainPerRoom: configuration.historyPerRoom)
            return true
        } catch {
            // Their seqs are handed out but not stored: the store must never be asked for these
            // rooms' last seq again in this process, or a seq would be reused.
            for event in events { roomsAheadOfStore.insert(event.room) }
            out.append(.log(.error, "history write failed", ["events": String(events.count), "error": "\(error)"]))
            return false
        }
    }

    /// A room idle for longer than the `idleRoomLimit` others: its cached seq goes, and a store
    /// that keeps history in memory drops the room's events (PROTOCOL.md section 12 bounds what
    /// rooms without members cost). The store keeps seqs of forgotten rooms from going back.
    func forgetIdleRoom(_ room: String) {
        history.forget(room: room)
        policies.rooms[room] = nil
        if !roomsAheadOfStore.contains(room) { lastSequenceByRoom[room] = nil }
    }

    func storedEvents(
        inRoom room: String, after: Int64?, before: Int64?, limit: Int, into out: inout [ServerAction]
    ) -> [StoredEvent] {
        do {
            return try history.events(inRoom: room, after: after, before: before, limit: limit)
        } catch {
            out.append(.log(.error, "history read failed", ["room": room, "error": "\(error)"]))
            return []
        }
    }

    func storedReceipt(peer: String, id: String, into out: inout [ServerAction]) -> MessageReceipt? {
        do {
            return try history.receipt(peer: peer, id: id)
        } catch {
            // Not the peer id: it is a credential (see ``logFields(_:_:)``).
            out.append(.log(.error, "history read failed", ["receipt": id, "error": "\(error)"]))
            return nil
        }
    }
}
