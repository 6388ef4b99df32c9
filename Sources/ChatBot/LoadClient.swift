import ChatClientKit
import QuicEngine

/// One connection of the load generator: which slot it fills, where its membership of its room
/// starts and ends in the room's sequence, and what it has received.
final class LoadClient {
    enum State { case connecting, joined, leaving, gone, failed }

    /// The send of one message, from its `msg` to its `ack` (or `error`).
    struct Pending {
        var intended: QuicTime
        var measured: Bool
    }

    /// The last typing indicator this client sent of one kind, to time its arrival elsewhere.
    struct TypingSent {
        var intended: QuicTime
        var measured: Bool
    }

    /// Unique over the run (slots are reused by churn); a receiver id in the ledger.
    let id: Int
    let slot: Int
    let room: String
    let session: ChatSession
    let connectStarted: QuicTime
    /// The server it connects to, as the report names it.
    let server: String
    var state = State.connecting
    /// The seq of its own `joined` and `left` in its room.
    var joinedSeq: Int64?
    var leftSeq: Int64?
    /// Room seqs of the measured messages it received (created at its `joined`).
    var seen = SeenSet(base: 0)
    /// The highest per-sender seq received from each slot, for the order check.
    var lastSeqFromSlot: [Int: Int] = [:]
    /// Messages sent and not yet acknowledged, by id (the per-client counter as a string).
    var pending: [Int: Pending] = [:]
    var nextMessageID = 1
    var isTyping = false
    /// Its uploads (`--file-rate`), started once it has joined.
    let files = FileTransfers()
    var lastTyping: [Bool: TypingSent] = [:]

    init(id: Int, slot: Int, room: String, session: ChatSession, connectStarted: QuicTime, server: String) {
        self.id = id
        self.server = server
        self.slot = slot
        self.room = room
        self.session = session
        self.connectStarted = connectStarted
    }

    /// Its membership as the ledger counts it; nil until it has joined, while its `part` is on the
    /// way (where its membership ends is not known yet), and once it failed.
    var receiver: DeliveryLedger.Receiver? {
        guard let joinedSeq, state != .failed, state != .leaving else { return nil }
        return DeliveryLedger.Receiver(id: id, room: room, joinedSeq: joinedSeq, leftSeq: leftSeq, seen: seen)
    }
}
