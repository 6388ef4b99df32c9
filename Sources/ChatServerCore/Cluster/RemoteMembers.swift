/// The members of a followed room on other nodes, from a shared log: a snapshot of the room's
/// members hash at a seq, then every membership change of the events after it. Each change sets a
/// nick's membership outright (in, out, renamed), so applying the events after the snapshot in
/// seq order gives the room as it is, whatever was delivered before the snapshot arrived.
struct RemoteMembers {
    /// By nick key.
    private(set) var records: [String: MemberRecord] = [:]
    /// The seq the members are known through; nil until the snapshot arrived.
    private(set) var knownThrough: Int64?
    /// Changes delivered before the snapshot, kept to apply after it when newer.
    private var early: [(seq: Int64, change: MembershipChange)] = []
    /// Changes kept while waiting for the snapshot, at most (a room that busy re-reads it).
    static let maxEarlyChanges = 10_000

    var isKnown: Bool { knownThrough != nil }

    /// The snapshot: the room's members at `seq`; `isLocal` members are this node's own (kept as
    /// sessions, not here).
    mutating func snapshot(_ members: [MemberRecord], at seq: Int64, isLocal: (String) -> Bool) {
        records = [:]
        for member in members where !member.onThisNode && !isLocal(member.key) { records[member.key] = member }
        knownThrough = seq
        let pending = early
        early = []
        for (changeSeq, change) in pending where changeSeq > seq { apply(change, seq: changeSeq, isLocal: isLocal) }
    }

    /// A delivered event's change; before the snapshot it waits. False when too many waited:
    /// the caller reads the snapshot again.
    @discardableResult
    mutating func apply(_ change: MembershipChange, seq: Int64, isLocal: (String) -> Bool) -> Bool {
        guard let known = knownThrough else {
            guard early.count < Self.maxEarlyChanges else { return false }
            early.append((seq, change))
            return true
        }
        guard seq > known else { return true }
        switch change {
        case .add(let member):
            if !member.onThisNode && !isLocal(member.key) { records[member.key] = member }
        case .remove(let keys), .removeIfHeld(let keys, _):
            for key in keys { records[key] = nil }
        case .rename(let fromKey, let member):
            records[fromKey] = nil
            if !member.onThisNode && !isLocal(member.key) { records[member.key] = member }
        }
        return true
    }

    /// A member that is now a connection of this node (it moved here): listed as such instead.
    mutating func becameLocal(_ key: String) {
        records[key] = nil
    }

    /// Forgets what is known: a new snapshot will be read.
    mutating func reset() {
        records = [:]
        knownThrough = nil
        early = []
    }

    mutating func setStatus(_ status: PresenceStatus, ofKey key: String) -> Bool {
        guard records[key] != nil, records[key]?.status != status else { return false }
        records[key]?.status = status
        return true
    }

    mutating func setAccount(_ account: String?, ofKey key: String) {
        guard records[key] != nil else { return }
        records[key]?.account = account
    }
}
