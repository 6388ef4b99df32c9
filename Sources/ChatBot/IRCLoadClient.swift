import QuicEngine

/// One IRC connection of `chat-bot irc-load`: its slot, nick and channel, where it is in
/// registration, the messages it sent and has not seen echoed yet, and what it received.
final class IRCLoadClient {
    enum State { case connecting, registering, joining, joined, gone, failed }

    /// Unique over the run; a receiver id in the ledger (irc-load has no churn: the slot).
    let id: Int
    let slot: Int
    let nick: String
    let channel: String
    let connection: IRCConnection
    let connectStarted: MonotonicTime
    var state = State.connecting
    /// Measured messages received, by their key in the channel (see `IRCLoadGenerator.key`).
    var seen = SeenSet(base: 0)
    /// The highest per-sender seq received from each slot, for the order check.
    var lastSeqFromSlot: [Int: Int] = [:]
    /// Messages sent and not echoed back yet, by per-sender seq: whether each is measured.
    var pending: [Int: Bool] = [:]
    var nextSeq = 0

    init(slot: Int, nick: String, channel: String, connection: IRCConnection, connectStarted: MonotonicTime) {
        id = slot
        self.slot = slot
        self.nick = nick
        self.channel = channel
        self.connection = connection
        self.connectStarted = connectStarted
    }

    /// A member of its channel from its own JOIN on; irc-load clients never leave during a run,
    /// so every message keyed in the channel counts, and none once it failed.
    var receiver: DeliveryLedger.Receiver? {
        guard state == .joined else { return nil }
        return DeliveryLedger.Receiver(id: id, room: channel, joinedSeq: -1, leftSeq: nil, seen: seen)
    }
}
