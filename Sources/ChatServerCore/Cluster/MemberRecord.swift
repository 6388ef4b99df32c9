import ChatProtocol

/// A room member as the shared log's members hash keeps it (by nick key): what a node needs to
/// list a member of another node (roster, `identified`, `ops`, `status`), and who holds it (a
/// node and a digest of the member's peer id, so a reconnect of the same device elsewhere is
/// recognised and a lost node's members found).
public struct MemberRecord: Sendable, Equatable {
    public var nick: String
    public var account: String?
    public var status: PresenceStatus
    /// The member's peer id, for a record this node makes (the glue stores only its digest).
    public var peer: String?
    /// The record names this node (read back from the log).
    public var onThisNode: Bool
    /// The digest of the member's peer id, as the store keeps it (read back from the log).
    public var device: String?

    public init(nick: String, account: String?, status: PresenceStatus, peer: String? = nil, onThisNode: Bool = false,
                device: String? = nil) {
        self.nick = nick
        self.account = account
        self.status = status
        self.peer = peer
        self.onThisNode = onThisNode || peer != nil
        self.device = device
    }

    public var key: String { ChatValidation.nickKey(nick) }
}

/// How a room event changes the room's members in the shared log, in the same atomic step.
public enum MembershipChange: Sendable, Equatable {
    /// A `joined`. When the store already has the member from the same device through another
    /// node (a reconnect elsewhere), the record moves here and no event is stored: the append
    /// answers `.stored(seq: CURRENT, duplicate: true)`.
    case add(MemberRecord)
    /// Nick keys.
    case remove([String])
    case rename(fromKey: String, to: MemberRecord)
    /// Members that leave only if their record is still `holder`'s; when none is, nothing is
    /// stored (the append answers seq 0).
    case removeIfHeld([String], by: MemberHolder)
}

/// Whose members a conditional removal takes.
public enum MemberHolder: Sendable, Equatable {
    /// Every member of a (lost) node.
    case node(String)
    /// The member of this node that is the device `peer` (its record names this node and it).
    case thisNode(peer: String)
}
