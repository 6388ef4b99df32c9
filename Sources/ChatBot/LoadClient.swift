import ChatClientKit
import QuicEngine

/// One client of the load generator: which slot it fills, where its membership of its room
/// starts and ends in the room's sequence, and what it has received. Its connection may change:
/// a lost one is replaced by a connection to the next server (a move) as the same peer.
final class LoadClient {
    enum State {
        case connecting, joined, leaving, gone, failed
        /// Its connection was lost (not by its own fault): it comes back on the next server and is
        /// `joined` again at its own `joined` there.
        case moving
    }

    /// The send of one message, from its `msg` to its `ack` (or `error`): its text, to send it
    /// again with the same id after a move.
    struct Pending {
        var intended: MonotonicTime
        var measured: Bool
        var text: String
        /// Answered `unavailable` and not sent again yet (docs/PROTOCOL.md section 10).
        var awaitingResend = false
    }

    /// The last typing indicator this client sent of one kind, to time its arrival elsewhere.
    struct TypingSent {
        var intended: MonotonicTime
        var measured: Bool
    }

    /// Unique over the run (slots are reused by churn); a receiver id in the ledger.
    let id: Int
    let slot: Int
    let room: String
    /// The connection now (a new one after each move).
    var session: ChatSession
    /// The peer id of every connection of this client.
    let peer: String
    /// The nick it asks for: the one given, then the one the server assigned.
    var nick: String
    /// The servers it uses, starting with server slot mod count, and the backoff of its moves.
    var rotation: ServerRotation
    let connectStarted: MonotonicTime
    /// The server it connects to, as the report names it (the one its first connection got to).
    var server: String
    var state = State.connecting
    /// The seq of its own `joined` and `left` in its room.
    var joinedSeq: Int64?
    var leftSeq: Int64?
    /// The last seq of its room it has had (every event up to it has arrived): the `since` of its
    /// re-join after a move.
    var lastSeq: Int64?
    /// When its connection was lost, while it moves.
    var moveStarted: MonotonicTime?
    /// Room seqs of the measured messages it received (created at its `joined`).
    var seen = SeenSet(base: 0)
    /// The highest per-sender seq received from each slot, for the order check.
    var lastSeqFromSlot: [Int: Int] = [:]
    /// Messages sent and not yet acknowledged, by id (the per-client counter as a string).
    var pending: [Int: Pending] = [:]
    /// Messages answered `unavailable` and not acknowledged since: while there are any, the
    /// client takes no new message (its own order is kept, as chat-client keeps it), and those
    /// are sent again in one round, in id order, after 100 ms doubling to 2 s per round.
    var unavailablePending: Set<Int> = []
    var resendRounds = 0
    var resendScheduled = false
    var nextMessageID = 1
    var isTyping = false
    /// Its uploads (`--file-rate`), started once it has joined.
    let files = FileTransfers()
    var lastTyping: [Bool: TypingSent] = [:]

    init(id: Int, slot: Int, room: String, session: ChatSession, rotation: ServerRotation, connectStarted: MonotonicTime, server: String) {
        self.id = id
        self.server = server
        self.slot = slot
        self.room = room
        self.session = session
        peer = session.peer
        nick = session.nick
        self.rotation = rotation
        self.connectStarted = connectStarted
    }

    /// Its membership as the ledger counts it; nil until it has joined, while its `part` is on the
    /// way (where its membership ends is not known yet), and once it failed. A move does not end
    /// it: the re-join's replay (from ``lastSeq``) brings what the room had meanwhile.
    var receiver: DeliveryLedger.Receiver? {
        guard let joinedSeq, state != .failed, state != .leaving else { return nil }
        return DeliveryLedger.Receiver(id: id, room: room, joinedSeq: joinedSeq, leftSeq: leftSeq, seen: seen)
    }
}
