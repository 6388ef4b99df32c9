import ChatServerCore

/// The message receipts the local store answers resends from: `PEER:ID` → the room and seq of a
/// room `msg` (nil for a `dm`) and its stamp. As many as the disk keeps (its receipt limit), read from
/// it when the server starts, the oldest forgotten first: a resend never waits for a disk read.
struct ReceiptMemory {
    struct Entry: Equatable {
        /// The room event's room and seq; nil for a `dm`'s receipt.
        var room: String?
        var seq: Int64?
        var ts: Int64
    }

    private var entries: OldestFirstMap<String, Entry>

    init(limit: Int) {
        entries = OldestFirstMap(limit: limit)
    }

    static func key(peer: String, id: String) -> String { "\(peer):\(id)" }

    subscript(key: String) -> Entry? { entries[key] }

    var count: Int { entries.count }

    mutating func remember(_ key: String, _ entry: Entry) {
        entries.remember(entry, forKey: key)
    }

    mutating func forget(_ key: String) {
        entries.forget(key)
    }
}
