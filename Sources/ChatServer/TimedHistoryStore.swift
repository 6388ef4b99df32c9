import ChatServerCore
import QuicEngine

/// The history store with every call timed into the metrics' store latency histograms: the
/// core calls the store on the loop thread, so its latency is the chat's.
final class TimedHistoryStore: HistoryStore {
    private let store: any HistoryStore
    private let metrics: ServerMetrics

    init(_ store: any HistoryStore, metrics: ServerMetrics) {
        self.store = store
        self.metrics = metrics
    }

    func lastSequence(inRoom room: String) throws -> Int64 {
        let start = MonotonicTime.now()
        defer { metrics.historyRead.observe(nanoseconds: (MonotonicTime.now() - start).nanoseconds) }
        return try store.lastSequence(inRoom: room)
    }

    func append(events: [StoredEvent], receipts: [MessageReceipt], retainPerRoom: Int) throws {
        let start = MonotonicTime.now()
        defer { metrics.historyAppend.observe(nanoseconds: (MonotonicTime.now() - start).nanoseconds) }
        try store.append(events: events, receipts: receipts, retainPerRoom: retainPerRoom)
    }

    func events(inRoom room: String, after: Int64?, before: Int64?, limit: Int) throws -> [StoredEvent] {
        let start = MonotonicTime.now()
        defer { metrics.historyRead.observe(nanoseconds: (MonotonicTime.now() - start).nanoseconds) }
        return try store.events(inRoom: room, after: after, before: before, limit: limit)
    }

    func receipt(peer: String, id: String) throws -> MessageReceipt? {
        let start = MonotonicTime.now()
        defer { metrics.historyRead.observe(nanoseconds: (MonotonicTime.now() - start).nanoseconds) }
        return try store.receipt(peer: peer, id: id)
    }

    func forget(room: String) { store.forget(room: room) }
}
