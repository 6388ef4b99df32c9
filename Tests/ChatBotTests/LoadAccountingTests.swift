@testable import ChatBot
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
