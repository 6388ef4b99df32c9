import ChatServerCore
import SQLiteStorage
import Testing

/// Behaviour both stores must share, run against each.
@Suite struct HistoryStoreTests {
    static let kinds = ["memory", "sqlite"]

    /// A store of the given kind; the directory keeps the SQLite file alive for the test.
    private func makeStore(_ kind: String, in directory: TemporaryDirectory, receiptLimit: Int = 100) throws -> any HistoryStore {
        kind == "memory"
            ? InMemoryHistoryStore(receiptLimit: receiptLimit)
            : try SQLiteHistoryStore(path: directory.file("history.sqlite"), receiptLimit: receiptLimit)
    }

    private func event(_ seq: Int64, room: String = "lobby", kind: StoredEventKind = .msg, id: String? = nil) -> StoredEvent {
        StoredEvent(room: room, seq: seq, ts: 1_000 + seq, kind: kind, sender: "alice", text: "t\(seq)", id: id)
    }

    /// Events come back oldest first, bounded by after, before and limit (the newest of the range).
    @Test(arguments: kinds) func rangeQueries(kind: String) throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(kind, in: directory)
        try store.append(events: (1...10).map { event($0) }, receipts: [], retainPerRoom: 100)
        try store.append(events: [event(1, room: "dev")], receipts: [], retainPerRoom: 100)
        #expect(try store.events(inRoom: "lobby", after: nil, before: nil, limit: 3).map(\.seq) == [8, 9, 10])
        #expect(try store.events(inRoom: "lobby", after: 2, before: nil, limit: 100).map(\.seq) == Array(3...10))
        #expect(try store.events(inRoom: "lobby", after: nil, before: 5, limit: 2).map(\.seq) == [3, 4])
        #expect(try store.events(inRoom: "lobby", after: 3, before: 6, limit: 10).map(\.seq) == [4, 5])
        #expect(try store.events(inRoom: "lobby", after: nil, before: Int64.min, limit: 10).isEmpty)
        #expect(try store.events(inRoom: "lobby", after: nil, before: nil, limit: 0).isEmpty)
        #expect(try store.events(inRoom: "nowhere", after: nil, before: nil, limit: 10).isEmpty)
        #expect(try store.events(inRoom: "dev", after: nil, before: nil, limit: 10).map(\.seq) == [1])
    }

    /// Every field of every stored kind round-trips, an absent id included.
    @Test(arguments: kinds) func eventsRoundTrip(kind: String) throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(kind, in: directory)
        let events = [
            StoredEvent(room: "lobby", seq: 1, ts: 11, kind: .joined, sender: "alice", text: ""),
            StoredEvent(room: "lobby", seq: 2, ts: 12, kind: .msg, sender: "alice", text: "héllo\n\t🎉", id: "ID"),
            StoredEvent(room: "lobby", seq: 3, ts: 13, kind: .nick, sender: "alice", text: "alicia"),
            StoredEvent(room: "lobby", seq: 4, ts: 14, kind: .left, sender: "alicia", text: "quit"),
        ]
        try store.append(events: events, receipts: [], retainPerRoom: 100)
        #expect(try store.events(inRoom: "lobby", after: nil, before: nil, limit: 10) == events)
        #expect(try store.lastSequence(inRoom: "lobby") == 4)
        #expect(try store.lastSequence(inRoom: "empty") == 0)
    }

    /// Pruning keeps at least the newest retainPerRoom events, per room, and never loses the last seq.
    @Test(arguments: kinds) func pruningKeepsNewest(kind: String) throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(kind, in: directory)
        for seq in Int64(1)...50 {
            try store.append(events: [event(seq)], receipts: [], retainPerRoom: 10)
        }
        try store.append(events: [event(1, room: "dev")], receipts: [], retainPerRoom: 10)
        let kept = try store.events(inRoom: "lobby", after: nil, before: nil, limit: 1_000)
        #expect(kept.count >= 10 && kept.count <= 20)
        #expect(kept.suffix(10).map(\.seq) == Array(41...50))
        #expect(try store.lastSequence(inRoom: "lobby") == 50)
        #expect(try store.events(inRoom: "dev", after: nil, before: nil, limit: 10).count == 1)
    }

    /// Receipts are found by peer and id, and only the newest receiptLimit are kept.
    @Test(arguments: kinds) func receiptsAreBounded(kind: String) throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(kind, in: directory, receiptLimit: 3)
        let msgReceipt = MessageReceipt(peer: "P", id: "1", room: "lobby", seq: 7, ts: 70)
        try store.append(events: [], receipts: [msgReceipt], retainPerRoom: 10)
        #expect(try store.receipt(peer: "P", id: "1") == msgReceipt)
        #expect(try store.receipt(peer: "Q", id: "1") == nil)
        for id in 2...4 {
            try store.append(events: [], receipts: [MessageReceipt(peer: "P", id: String(id), ts: Int64(id))], retainPerRoom: 10)
        }
        #expect(try store.receipt(peer: "P", id: "1") == nil)
        #expect(try store.receipt(peer: "P", id: "2") == MessageReceipt(peer: "P", id: "2", ts: 2))
        #expect(try store.receipt(peer: "P", id: "4")?.room == nil)
    }
}
