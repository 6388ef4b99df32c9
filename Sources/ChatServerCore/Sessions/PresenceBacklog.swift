/// Presence events held for a client whose presence stream does not exist yet (PROTOCOL.md
/// section 2), bounded in count and in bytes.
///
/// Each event has a key (the room of a `roster`, the user of a `status`), and a newer event
/// supersedes the waiting one with the same key: a roster is a snapshot and a status a current
/// value, so only the newest of each is worth sending. A client that joins the same big room a
/// thousand times before opening its presence stream therefore holds one roster, not a thousand.
/// Beyond the bounds the oldest events go first; the newest is always kept.
struct PresenceBacklog {
    enum Key: Hashable {
        case roster(room: String)
        /// By ``ChatValidation/nickKey(_:)`` of the user.
        case status(nickKey: String)
    }

    private struct Entry {
        let key: Key
        let payload: SharedPayload
    }

    let countLimit: Int
    let byteLimit: Int
    /// Waiting events oldest first; nil where one was superseded or dropped.
    private var entries: [Entry?] = []
    private var head = 0
    /// Where each key's waiting event is in `entries`.
    private var positions: [Key: Int] = [:]
    private(set) var count = 0
    private(set) var byteCount = 0
    /// Events dropped to stay within the bounds (superseded ones are not counted).
    private(set) var droppedCount = 0

    init(countLimit: Int, byteLimit: Int) {
        self.countLimit = countLimit
        self.byteLimit = byteLimit
    }

    var isEmpty: Bool { count == 0 }

    mutating func append(_ payload: SharedPayload, key: Key) {
        if let superseded = positions[key] { discard(at: superseded) }
        positions[key] = entries.count
        entries.append(Entry(key: key, payload: payload))
        count += 1
        byteCount += payload.bytes.count
        while count > 1 && (count > countLimit || byteCount > byteLimit) {
            dropOldest()
        }
        compactIfSparse()
    }

    /// Everything waiting, oldest first, leaving the backlog empty.
    mutating func removeAll() -> [SharedPayload] {
        let waiting = entries[head...].compactMap { $0?.payload }
        entries = []
        positions = [:]
        head = 0
        count = 0
        byteCount = 0
        return waiting
    }

    private mutating func dropOldest() {
        while head < entries.count, entries[head] == nil { head += 1 }
        guard head < entries.count else { return }
        discard(at: head)
        droppedCount += 1
    }

    private mutating func discard(at index: Int) {
        guard let entry = entries[index] else { return }
        entries[index] = nil
        positions[entry.key] = nil
        count -= 1
        byteCount -= entry.payload.bytes.count
    }

    /// Rebuilds the array once holes outnumber the waiting events: amortised O(1) per append.
    private mutating func compactIfSparse() {
        guard entries.count > 2 * count + 16 else { return }
        entries = entries[head...].filter { $0 != nil }
        head = 0
        positions = [:]
        for (index, entry) in entries.enumerated() {
            if let entry { positions[entry.key] = index }
        }
    }
}
