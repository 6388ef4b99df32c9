/// What every receiver should have seen: the measured messages the server acknowledged, by room
/// and server `seq`. A receiver should have every one of them that the server sequenced after
/// its own `joined` and before its own `left` (PROTOCOL.md: a member gets every room event from
/// its `joined` on, in order), except its own, which the server never echoes. The server's
/// sequence numbers make this exact also while clients join and leave (churn).
struct DeliveryLedger: Sendable {
    private struct Entry: Sendable {
        var seq: Int64
        var sender: Int
    }

    /// One receiver's view: its room, its own `joined` and `left` seqs, what it got.
    struct Receiver {
        var id: Int
        var room: String
        var joinedSeq: Int64
        var leftSeq: Int64?
        var seen: SeenSet
    }

    private var rooms: [String: [Entry]] = [:]
    private var sorted = true
    private(set) var count = 0

    /// A measured message from `sender` (a receiver id) acknowledged with `seq` in `room`.
    mutating func recordAcknowledged(room: String, seq: Int64, sender: Int) {
        if let last = rooms[room]?.last, last.seq > seq { sorted = false }
        rooms[room, default: []].append(Entry(seq: seq, sender: sender))
        count += 1
    }

    /// Acks from different senders can arrive slightly out of seq order; sort before counting.
    mutating func prepare() {
        guard !sorted else { return }
        for room in rooms.keys { rooms[room]?.sort { $0.seq < $1.seq } }
        sorted = true
    }

    /// How many deliveries `receiver` should have had and how many of them it has not. With
    /// `stopAtFirstMissing` the count ends at the first gap (a cheap "anything still missing?").
    func tally(_ receiver: Receiver, stopAtFirstMissing: Bool = false) -> (expected: Int, missing: Int) {
        guard let entries = rooms[receiver.room] else { return (0, 0) }
        var index = firstIndex(in: entries, after: receiver.joinedSeq)
        var expected = 0
        var missing = 0
        while index < entries.count {
            let entry = entries[index]
            index += 1
            if let left = receiver.leftSeq, entry.seq >= left { break }
            guard entry.sender != receiver.id else { continue }
            expected += 1
            if !receiver.seen.contains(entry.seq) {
                missing += 1
                if stopAtFirstMissing { break }
            }
        }
        return (expected, missing)
    }

    /// The first entry with a seq above `seq` (binary search; entries are sorted).
    private func firstIndex(in entries: [Entry], after seq: Int64) -> Int {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].seq <= seq { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
