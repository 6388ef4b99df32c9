import ChatProtocol

/// What PROTOCOL.md section 8 lets a room's operators decide, as the account store keeps it and
/// the core caches it for every room with members: owner, operators, topic, modes, bans, invites.
public struct RoomSettings: Sendable, Equatable {
    /// The owning account's name; nil while nobody has claimed the room.
    public var owner: String?
    /// Operator accounts by key, with their names as given.
    public var operators: [String: String] = [:]
    public var topic: RoomTopic?
    public var modes: Set<RoomMode> = []
    public var bans = BanList()
    public var invites: Set<Invitee> = []

    public init(owner: String? = nil, operators: [String: String] = [:], topic: RoomTopic? = nil, modes: Set<RoomMode> = [],
                bans: BanList = BanList(), invites: Set<Invitee> = []) {
        self.owner = owner
        self.operators = operators
        self.topic = topic
        self.modes = modes
        self.bans = bans
        self.invites = invites
    }

    /// The key of the owning account.
    var ownerKey: String? { owner.map(ChatValidation.nickKey) }

    /// Whether the account (by key) is the owner or an operator.
    func isOperator(_ accountKey: String?) -> Bool {
        guard let accountKey else { return false }
        return accountKey == ownerKey || operators[accountKey] != nil
    }

    /// Nothing here restricts who may join or speak: the common case, checked first.
    var restrictsNobody: Bool { bans.isEmpty && modes.isEmpty }

    /// The modes sorted as `roster` lists them.
    var modeNames: [String] { modes.sorted().map(\.rawValue) }

    /// Applies a change, as the store does.
    mutating func apply(_ change: PolicyChange) {
        switch change {
        case .owner(_, let account): owner = account
        case .topic(_, let topic): self.topic = topic
        case .mode(_, let mode, let isOn):
            if isOn { modes.insert(mode) } else { modes.remove(mode) }
        case .operatorAdded(_, let account): operators[ChatValidation.nickKey(account)] = account
        case .operatorRemoved(_, let account): operators[ChatValidation.nickKey(account)] = nil
        case .banAdded(_, let ban): bans.insert(ban)
        case .banRemoved(_, let label): bans.remove(label: label)
        case .inviteAdded(_, let invitee): invites.insert(invitee)
        }
    }
}
