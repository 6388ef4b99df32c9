import ChatProtocol

/// A connection catching up with a room from a shared log: its replay is being read while the
/// room's live events are held for it, so it sees the replay, then its `joined`, then what came
/// after, in seq order. A `join` (new member) or a re-join (resynchronisation) starts one; while
/// it lasts, the connection's later chat-stream messages wait (docs/PROTOCOL.md section 10).
final class CatchUp {
    let room: String
    let since: Int64?
    /// The request's id, for its `error`.
    let id: String?
    /// A re-join of a room the connection was in: it gets its own `joined` with the latest seq.
    let isRejoin: Bool
    /// No `joined` of its own will come from the log (a re-join, or a device that was in the
    /// room through another node): it gets one with the latest seq after its replay.
    var sendsOwnJoined: Bool
    /// The first seq the connection gets live (for a join, that of its `joined`); nil until known.
    var liveFrom: Int64?
    /// The last seq sent to it while catching up (replay and held events).
    var sentThrough: Int64 = 0
    /// Live events held until the replay is out, in seq order.
    private(set) var held: [(seq: Int64, payload: SharedPayload)] = []
    /// The connection's own acks whose place came while it catches up (a re-join with messages
    /// on their way), in seq order: they go out among the held events in seq order, and are
    /// never dropped with them (an ack is not in the log to be read again).
    private var acks: [(seq: Int64, payload: SharedPayload)] = []
    private var heldBytes = 0
    /// More was held than the limits allow: the held events were dropped and are read again.
    private(set) var overflowed = false
    /// Its replay is out; it waits for the room's members on other nodes (its roster).
    var awaitsMembers = false
    /// More re-joins of the same room with the same `since` that came meanwhile: each gets the
    /// same answer (as on one server, where each is answered at once).
    var repeats = 0
    /// A re-join's replay, kept for its repeats.
    var replayed: [SharedPayload] = []

    static let maxHeldEvents = 1000
    static let maxHeldBytes = 8 << 20

    init(room: String, since: Int64?, id: String?, isRejoin: Bool) {
        self.room = room
        self.since = since
        self.id = id
        self.isRejoin = isRejoin
        sendsOwnJoined = isRejoin
    }

    func hold(seq: Int64, payload: SharedPayload) {
        guard !overflowed else { return }
        guard held.count < Self.maxHeldEvents, heldBytes + payload.bytes.count <= Self.maxHeldBytes else {
            held = []
            heldBytes = 0
            overflowed = true
            return
        }
        held.append((seq, payload))
        heldBytes += payload.bytes.count
    }

    func holdAck(seq: Int64, payload: SharedPayload) {
        acks.append((seq, payload))
    }

    /// The acks held with a seq below `seq` (all without one), removed.
    func takeAcks(before seq: Int64? = nil) -> [SharedPayload] {
        guard let first = acks.first, first.seq < (seq ?? .max) else { return [] }
        let due = acks.prefix { $0.seq < (seq ?? .max) }
        acks.removeFirst(due.count)
        return due.map(\.payload)
    }

    /// The held events, emptied; the overflow mark is cleared.
    func takeHeld() -> [(seq: Int64, payload: SharedPayload)] {
        defer {
            held = []
            heldBytes = 0
            overflowed = false
        }
        return held
    }
}

/// A close the core decided while the connection's messages waited for the shared store.
struct DeferredClose {
    let code: CloseCode
    let reason: String
    /// Its appends not answered yet.
    var waiting: Int
    /// Per room, the last seq the connection got there (an event or an ack): an ack may still go
    /// out only right after it.
    var through: [String: Int64]

    /// Whether an ack of `seq` in `room` follows what the connection got there without a gap (and
    /// then it has got that too). A room it was not following anything in does not hold it back.
    static func follows(_ seq: Int64, in room: String, through: inout [String: Int64]) -> Bool {
        guard let last = through[room] else { return true }
        guard seq <= last + 1 else { return false }
        through[room] = max(last, seq)
        return true
    }
}

/// A shared-log read on its way, by token.
enum PendingRead {
    /// The replay (or, after an overflow, the live events) of a connection catching up.
    case catchUp(ClientID, live: Bool)
    /// A `history` request's answer.
    case history(ClientID, room: String)
    /// A followed room's members on every node (and its settings).
    case members(String)
    /// A room's settings, for a step that needs them (``SettingsWait``).
    case settings(String, then: SettingsWait)
}

/// What waits for a room's settings from a shared store.
enum SettingsWait {
    /// A `join` of the room (the hello's included): checked again once they are known.
    case join(ClientID, since: Int64?, id: String?)
    /// The settings changed elsewhere (a ban): this node's members it now bans leave.
    case refresh
}
