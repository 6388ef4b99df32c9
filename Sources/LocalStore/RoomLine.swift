import ChatServerCore

/// One room in the ``LocalStoreAdapter``: its seqs, what waits for them, its recent events, whether
/// the core follows it, and what the shared log's members hash and settings would say.
struct RoomLine {
    /// The last seq handed out.
    var last: Int64
    /// The highest seq a committed reservation covers: nothing above it is handed out.
    var reserved: Int64
    /// A reservation asked for and not committed yet, through this seq.
    var requested: Int64?
    /// Appends waiting for a reservation, in order.
    var waiting: [RoomEventAppend] = []
    /// The newest events (``LocalStoreAdapter/tailLimit``), oldest first.
    var tail: [SharedRoomEvent] = []
    var followed = false
    /// While older events are read for a follow: the read's token, and the events to deliver after them.
    var reading: (token: UInt64, held: [SharedRoomEvent])?
    /// Events held until a commit (by its ticket): an event that changes the room's settings, and
    /// every later one of the room, in seq order.
    var untilCommit: (ticket: UInt64, events: [SharedRoomEvent])?
    /// The owner, once known (a `claim` stored, or the settings read for a join).
    var owner: String?
    var members = LocalMembers()

    init(last: Int64, reserved: Int64) {
        self.last = last
        self.reserved = reserved
    }

    /// A new event for the room's followers: at once, after the follow's read, or (`afterCommit`,
    /// or behind an event held so) once that commit is done.
    mutating func deliver(_ event: SharedRoomEvent, afterCommit ticket: UInt64?) -> [LocalStoreAnswer] {
        guard followed else { return [] }
        if var held = untilCommit {
            held.events.append(event)
            if let ticket { held.ticket = ticket }
            untilCommit = held
            return []
        }
        if let ticket {
            untilCommit = (ticket, [event])
            return []
        }
        return show(event)
    }

    /// The commit with `ticket` (and every one before it) is done: the events held for it go.
    mutating func committed(_ ticket: UInt64) -> [LocalStoreAnswer] {
        guard let held = untilCommit, held.ticket <= ticket else { return [] }
        untilCommit = nil
        return held.events.flatMap { show($0) }
    }

    private mutating func show(_ event: SharedRoomEvent) -> [LocalStoreAnswer] {
        if reading != nil {
            reading!.held.append(event)
            return []
        }
        return [.delivered(event)]
    }
}

/// A room's members on this server, by nick key: the shared log's members hash for one node.
/// Kept in memory: after a restart nobody is in a room until they join again.
struct LocalMembers {
    private(set) var byKey: [String: MemberRecord] = [:]

    enum Change {
        /// The event is stored.
        case changed
        /// A conditional removal found none of its members: nothing is stored (seq 0).
        case unchanged
        /// A `joined` of a device that is a member already (a reconnect): its record is renewed,
        /// nothing is stored.
        case adopted
    }

    mutating func apply(_ change: MembershipChange?) -> Change {
        switch change {
        case nil:
            return .changed
        case .add(let record):
            let current = byKey.updateValue(record, forKey: record.key)
            if let peer = record.peer, current?.peer == peer { return .adopted }
            return .changed
        case .remove(let keys):
            for key in keys { byKey[key] = nil }
            return .changed
        case .rename(let fromKey, let record):
            byKey[fromKey] = nil
            byKey[record.key] = record
            return .changed
        case .removeIfHeld(let keys, .thisNode(let peer)):
            let held = keys.filter { byKey[$0]?.peer == peer }
            for key in held { byKey[key] = nil }
            return held.isEmpty ? .unchanged : .changed
        case .removeIfHeld(_, .node):
            // Another node's members: one server has no other node.
            return .unchanged
        }
    }

    var records: [MemberRecord] { byKey.keys.sorted().map { byKey[$0]! } }
}
