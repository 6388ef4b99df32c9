import ChatProtocol

/// A room member as the shared log's members hash keeps it (by nick key): what a node needs to
/// list a member of another node (roster, `identified`, `ops`, `status`).
public struct MemberRecord: Sendable, Equatable {
    public var nick: String
    public var account: String?
    public var status: PresenceStatus
    /// Set when the member is a connection of THIS node (the glue knows from the record's node).
    public var client: ClientID?

    public init(nick: String, account: String?, status: PresenceStatus, client: ClientID? = nil) {
        self.nick = nick
        self.account = account
        self.status = status
        self.client = client
    }

    public var key: String { ChatValidation.nickKey(nick) }
}

/// How a room event changes the room's members in the shared log, in the same atomic step.
public enum MembershipChange: Sendable, Equatable {
    case add(MemberRecord)
    /// Nick keys.
    case remove([String])
    case rename(fromKey: String, to: MemberRecord)
}
