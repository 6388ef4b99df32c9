/// A room event for the shared log to store: it assigns the seq, keeps the event in the room's
/// history and publishes it to every node following the room, in one atomic step.
public struct RoomEventAppend: Sendable {
    /// Names the append in ``ChatServerState/roomEventAppended(_:_:now:)``.
    public let token: UInt64
    public let room: String
    public let kind: StoredEventKind
    /// The event as members receive it, a JSON object without LF, in two halves around the seq
    /// that only the log knows: `beforeSeq`, the seq in decimal, `afterSeq`.
    public let beforeSeq: [UInt8]
    public let afterSeq: [UInt8]
    /// The connection of this node whose request made the event; it comes back with the event, so
    /// the node knows whose it is (the sender of a `msg` does not get it back, a joiner catches up).
    public let origin: ClientID?
    /// For a `msg` with an id: `PEER:ID`. A second append with the same key (a resend) stores
    /// nothing and answers the first one's seq.
    public let dedupe: String?
    /// How the event changes the room's members (`joined`, `left`, `nick`, `kicked`, `banned`).
    public let membership: MembershipChange?
    /// The change of the room's settings the event announces (`topic`, `mode`, `op`, `deop`,
    /// `banned`, `unbanned`), stored with it in one step.
    public let policy: PolicyChange?
    /// The event's stamp: a resend of a `msg` is acknowledged with its first copy's.
    public var ts: Int64 = 0

    /// The status of the member a `joined` or `nick` adds, when not `online`: it travels with the
    /// event (in its meta), so every node shows a joiner who set `away` before the hello as away
    /// at once rather than `online` first.
    public var memberStatus: PresenceStatus? {
        switch membership {
        case .add(let record), .rename(_, let record): record.status == .online ? nil : record.status
        default: nil
        }
    }
}

/// What became of a ``RoomEventAppend``.
public enum RoomAppendOutcome: Sendable, Equatable {
    /// Stored with `seq`; `duplicate` when the dedupe key was known (stored earlier, not again),
    /// `firstTs` then the first copy's stamp when the log keeps it (the resend's `ack` is the first's).
    case stored(seq: Int64, duplicate: Bool, firstTs: Int64? = nil)
    /// Nothing stored: the event's change of the room's settings was conditional (a `claim`'s
    /// owner, only while the room has none) and the setting was taken; its value.
    case settingTaken(String)
    /// Not known to be stored: the log was unreachable, did not answer, or refused. A connection
    /// lost with the append unanswered may still have stored it: the event then comes back
    /// through ``ChatServerState/roomEventDelivered(_:now:)`` like any other.
    case failed(String)
    /// Not stored, and known not to be: nothing reached the log, or it refused the event before
    /// storing anything. The client's `unavailable` says so (`stored: false`).
    case refused(String)
}
