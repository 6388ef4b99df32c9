/// Seq assignment and the calls into the history store. A store failure becomes a `.log`
/// at error level: the server keeps serving, and the caller decides what may still happen.
extension ChatServerState {
    /// A new room event with the room's next seq.
    func makeEvent(
        _ kind: StoredEventKind, in room: String, sender: String, text: String = "", id: String? = nil,
        now: Int64, into out: inout [ServerAction]
    ) -> StoredEvent {
        StoredEvent(room: room, seq: nextSequence(inRoom: room, into: &out), ts: now, kind: kind, sender: sender, text: text, id: id)
    }

    private func nextSequence(inRoom room: String, into out: inout [ServerAction]) -> Int64 {
        let last: Int64
        if let cached = lastSequenceByRoom[room] {
            last = cached
        } else {
            do {
                last = try history.lastSequence(inRoom: room)
            } catch {
                out.append(.log(.error, "history read failed", ["room": room, "error": "\(error)"]))
                last = 0
            }
        }
        lastSequenceByRoom[room] = last + 1
        return last + 1
    }

    /// Stores events and receipts in one transaction; false if the store failed.
    func persist(_ events: [StoredEvent], receipts: [MessageReceipt] = [], into out: inout [ServerAction]) -> Bool {
        do {
            try history.append(events: events, receipts: receipts, retainPerRoom: configuration.historyPerRoom)
            return true
        } catch {
            out.append(.log(.error, "history write failed", ["events": String(events.count), "error": "\(error)"]))
            return false
        }
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
            out.append(.log(.error, "history read failed", ["peer": peer, "error": "\(error)"]))
            return nil
        }
    }
}
