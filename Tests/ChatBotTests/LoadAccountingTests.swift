@testable import ChatBot
import QuicEngine
import Testing

/// How the load generator decides what was lost, doubled or reordered.
@Suite("load accounting")
struct LoadAccountingTests {
    /// The message text carries slot, per-sender seq and intended time, at any padded size.
    @Test func messageTextRoundTrips() {
        let text = LoadMessageText(slot: 17, seq: 4242, intended: 123_456_789_012)
        for size in [1, 10, 100, 4096] {
            let encoded = text.encoded(size: size)
            #expect(LoadMessageText(decoding: encoded) == text)
            #expect(size < 30 || encoded.utf8.count == size)
        }
        for other in ["hello", "L", "L1.2", "L1.2.x", "L1..3", "l1.2.3", "L1.2.3.4", "L99999999999999999999.1.1"] {
            #expect(LoadMessageText(decoding: other) == nil, "\(other)")
        }
    }

    /// A receiver should have each acknowledged measured message sequenced after its own
    /// `joined` and before its own `left`, except its own; anything else is not counted.
    @Test func ledgerCountsMembershipWindow() {
        var ledger = DeliveryLedger()
        // Room seqs 10...20 from sender 1; 15 from the receiver itself (id 2); 30 in another room.
        for seq in Int64(10)...20 where seq != 15 { ledger.recordAcknowledged(room: "r", seq: seq, sender: 1) }
        ledger.recordAcknowledged(room: "r", seq: 15, sender: 2)
        ledger.recordAcknowledged(room: "other", seq: 30, sender: 1)
        // Out of order acks are sorted before counting.
        ledger.recordAcknowledged(room: "r", seq: 9, sender: 1)
        ledger.prepare()
        var seen = SeenSet(base: 13)
        let firsts = (Int64(13)...17).filter { $0 != 15 }.map { seen.insert($0) }
        let again = seen.insert(13)
        #expect(firsts == [true, true, true, true])
        #expect(!again, "a second copy is a duplicate")
        #expect(seen.count == 4 && seen.contains(16) && !seen.contains(15) && !seen.contains(12))
        let receiver = DeliveryLedger.Receiver(id: 2, room: "r", joinedSeq: 12, leftSeq: 18, seen: seen)
        // Expected 13, 14, 16, 17 (15 is its own, 18 is its left): all seen.
        let left = ledger.tally(receiver)
        #expect(left.expected == 4 && left.missing == 0)
        var stayed = receiver
        stayed.leftSeq = nil
        // Still a member: 18, 19, 20 are missing too.
        let member = ledger.tally(stayed)
        #expect(member.expected == 7 && member.missing == 3)
        #expect(ledger.tally(stayed, stopAtFirstMissing: true).missing == 1)
    }
}

/// The accounting across a move (LoadStatistics.recordDelivery): what a receiver missed while it
/// moved comes in its re-join's replay.
extension LoadAccountingTests {
    /// Replayed messages it has not seen are delivered (not duplicated) and fill the gap; a
    /// replayed one it has already is neither delivered again nor a duplicate; a live copy of one
    /// it has (seen live or replayed) is a duplicate; the ledger finds nothing missing.
    @Test func replaysAfterAMoveFillWithoutDuplicates() {
        var stats = LoadStatistics()
        var seen = SeenSet(base: 11)
        var order: [Int: Int] = [:]
        let now = MonotonicTime.now()
        func deliver(_ seq: Int64, replayed: Bool) {
            let text = LoadMessageText(slot: 1, seq: Int(seq), intended: now.nanoseconds - 1_000_000)
            stats.recordDelivery(of: text, key: seq, measured: true, replayed: replayed, seen: &seen, lastSeqFromSlot: &order, now: now)
        }
        // Joined at 10; 11 and 12 live, then the connection is lost (since = 12).
        deliver(11, replayed: false)
        deliver(12, replayed: false)
        // The re-join's replay: 13 and 14, missed while away; 12 again (a server replaying below `since`).
        deliver(13, replayed: true)
        deliver(14, replayed: true)
        deliver(12, replayed: true)
        // Live again: 15, then a live copy of 14.
        deliver(15, replayed: false)
        deliver(14, replayed: false)
        #expect(stats.delivered == 5 && stats.replayedDelivered == 2)
        #expect(stats.replayedAlreadySeen == 1)
        #expect(stats.duplicates == 1 && stats.outOfOrder == 0)
        #expect(stats.deliveredAll == 7)
        var ledger = DeliveryLedger()
        for seq in Int64(11)...15 { ledger.recordAcknowledged(room: "r", seq: seq, sender: 1) }
        ledger.prepare()
        let tally = ledger.tally(DeliveryLedger.Receiver(id: 2, room: "r", joinedSeq: 10, leftSeq: nil, seen: seen))
        #expect(tally.expected == 5 && tally.missing == 0)
    }
}
