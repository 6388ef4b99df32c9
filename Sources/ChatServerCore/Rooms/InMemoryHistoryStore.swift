/// A history store that lives as long as the process: seq starts again from 1 after a restart,
/// which PROTOCOL.md allows for a server that keeps no history on disk.
public final class InMemoryHistoryStore: HistoryStore {
    /// Receipts kept at most; the oldest are forgotten first. A client resends only what is
    /// still unacknowledged after a reconnect, so only recent receipts matter.
    public let receiptLimit: Int

    private var logs: [String: RoomLog] = [:]
    /// The highest seq of any room forgotten: a room the store does not know starts above it,
    /// so a forgotten room that comes back never hands out a seq twice (a client that re-joins
    /// with `since` then misses nothing; it sees a gap and pages back, as after a trim).
    private var forgottenSequenceFloor: Int64 = 0
    private var receipts: OldestFirstMap<ReceiptKey, MessageReceipt>

    public init(receiptLimit: Int = 100_000) {
        precondition(receiptLimit >= 1, "a store must keep at least one receipt")
        self.receiptLimit = receiptLimit
        receipts = OldestFirstMap(limit: receiptLimit)
    }

    public func lastSequence(inRoom room: String) -> Int64 {
        logs[room]?.events.last?.seq ?? forgottenSequenceFloor
    }

    public func forget(room: String) {
        guard let log = logs.removeValue(forKey: room) else { return }
        forgottenSequenceFloor = max(forgottenSequenceFloor, log.events.last?.seq ?? 0)
    }

    /// Rooms whose events the store holds.
    public var roomCount: Int { logs.count }

    /// Events held for `room`.
    public func eventCount(inRoom room: String) -> Int { logs[room]?.events.count ?? 0 }

    /// Receipts held.
    public var receiptCount: Int { receipts.count }

    public func append(events: [StoredEvent], receipts newReceipts: [MessageReceipt], retainPerRoom: Int) {
        for event in events {
            logs[event.room, default: RoomLog()].insert(event)
            if event.kind == .edit || event.kind == .redact { logs[event.room]?.revise(by: event) }
        }
        for event in events {
            logs[event.room]?.prune(retaining: retainPerRoom)
        }
        for receipt in newReceipts {
            remember(receipt)
        }
    }

    public func events(inRoom room: String, after: Int64?, before: Int64?, limit: Int) -> [StoredEvent] {
        guard limit > 0, let log = logs[room] else { return [] }
        return log.newest(limit, after: after ?? 0, before: before ?? Int64.max)
    }

    public func receipt(peer: String, id: String) -> MessageReceipt? {
        receipts[ReceiptKey(peer: peer, id: id)]
    }

    private func remember(_ receipt: MessageReceipt) {
        receipts.remember(receipt, forKey: ReceiptKey(peer: receipt.peer, id: receipt.id))
    }
}

private struct ReceiptKey: Hashable {
    var peer: String
    var id: String
}

/// One room's events, ascending by seq.
private struct RoomLog {
    var events: [StoredEvent] = []

    mutating func insert(_ event: StoredEvent) {
        // The server assigns seqs in order, so this is an append; the search covers callers that don't.
        if let last = events.last, last.seq >= event.seq {
            let index = firstIndex(withSeqAbove: event.seq - 1)
            if index < events.count, events[index].seq == event.seq {
                events[index] = event
            } else {
                events.insert(event, at: index)
            }
        } else {
            events.append(event)
        }
    }

    /// Applies an `edit` or `redact` to the message it names (``MessageRevision``); a redaction
    /// erases the texts of that message's edits too.
    mutating func revise(by revision: StoredEvent) {
        guard let seq = revision.ref else { return }
        let index = firstIndex(withSeqAbove: seq - 1)
        guard index < events.count, events[index].seq == seq, let revised = MessageRevision.revised(events[index], by: revision) else {
            return
        }
        events[index] = revised
        guard revision.kind == .redact else { return }
        for edit in events.indices where events[edit].kind == .edit && events[edit].ref == seq {
            events[edit] = MessageRevision.erased(events[edit])
        }
    }

    /// Keeps at least `retaining` events; trims only when twice that many accumulated, so
    /// the cost of moving the array is spread over many appends.
    mutating func prune(retaining: Int) {
        let keep = max(retaining, 1)
        if events.count > 2 * keep {
            events.removeFirst(events.count - keep)
        }
    }

    func newest(_ limit: Int, after: Int64, before: Int64) -> [StoredEvent] {
        let lower = firstIndex(withSeqAbove: after)
        let upper = before == Int64.min ? lower : max(lower, firstIndex(withSeqAbove: before - 1))
        return Array(events[max(lower, upper - limit)..<upper])
    }

    private func firstIndex(withSeqAbove seq: Int64) -> Int {
        var low = 0
        var high = events.count
        while low < high {
            let middle = (low + high) / 2
            if events[middle].seq > seq { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
