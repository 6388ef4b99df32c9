/// The calls into the history store that remain (a `dm`'s receipt, kept beside the shared one). A
/// store failure becomes a `.log` at error level: the server keeps serving, and the caller decides.
extension ChatServerState {
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

    /// A room idle for longer than the `idleRoomLimit` others: its cached settings go
    /// (PROTOCOL.md section 12 bounds what rooms without members cost).
    func forgetIdleRoom(_ room: String) {
        history.forget(room: room)
        policies.rooms[room] = nil
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
