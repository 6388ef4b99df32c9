import ChatProtocol

/// Who may do what (PROTOCOL.md section 8), owned in one place: the settings (owner, operators,
/// topic, modes, bans, invites) of the rooms held in memory, the server bans, and the account
/// keys of the server operators. It answers questions about a ``PolicySubject`` and applies
/// stored changes; the core reads and writes the stores and answers the clients around it.
struct Policies {
    /// Settings of every room with members and of the idle rooms still held, so no ordinary
    /// message asks the store.
    var rooms: [String: RoomSettings] = [:]
    /// Every server ban, loaded at start (and, with a shared store, kept as the others change it).
    var serverBans = BanList()
    /// The server operators' account keys (from the configuration).
    var operatorKeys: Set<String>

    init(operators: some Sequence<String>, serverBans: [Ban] = []) {
        operatorKeys = Set(operators.map(ChatValidation.nickKey))
        self.serverBans = BanList(serverBans)
    }

    func isServerOperator(_ accountKey: String?) -> Bool {
        accountKey.map(operatorKeys.contains) ?? false
    }

    /// What an account (by key; nil: a guest), connected or not, may do in a room with these settings.
    func privilege(ofAccount key: String?, in settings: RoomSettings) -> Privilege {
        guard let key else { return .guest }
        if operatorKeys.contains(key) { return .serverOperator }
        if key == settings.ownerKey { return .owner }
        if settings.operators[key] != nil { return .roomOperator }
        return .member
    }

    /// Why `subject` may not join a room, or nil. Bans, then the registered mode, then the invite
    /// mode; the room's operators and server operators pass the modes, server operators the bans.
    func joinDenial(of subject: PolicySubject, settings: RoomSettings, room: String) -> (ErrorCode, String)? {
        if settings.restrictsNobody { return nil }
        let rank = privilege(ofAccount: subject.accountKey, in: settings)
        if rank < .serverOperator, isBanned(subject, in: settings) { return (.banned, "you are banned from room '\(room)'") }
        if rank >= .roomOperator { return nil }
        if settings.modes.contains(.registered), subject.isGuest {
            return (.accountRequired, "room '\(room)' takes logged-in users only")
        }
        if settings.modes.contains(.invite), !isInvited(subject, in: settings) {
            return (.notInvited, "room '\(room)' is invite-only and you are not invited")
        }
        return nil
    }

    /// Why a member may not speak in a room with these settings, or nil: banned (a guest who
    /// logged in to a banned account), or a guest in a `registered` room.
    func speakingDenial(of subject: PolicySubject, in room: String, settings: RoomSettings) -> (ErrorCode, String)? {
        if !isServerOperator(subject.accountKey), isBanned(subject, in: settings) { return (.banned, "you are banned from room '\(room)'") }
        if settings.modes.contains(.registered), subject.isGuest {
            return (.accountRequired, "room '\(room)' takes logged-in users only: guests may not speak")
        }
        return nil
    }

    func isBanned(_ subject: PolicySubject, in settings: RoomSettings) -> Bool {
        matches(settings.bans, subject)
    }

    /// Whether a ban of `bans` matches the subject (with a shared store, by its device too).
    func matches(_ bans: BanList, _ subject: PolicySubject) -> Bool {
        bans.matches(account: subject.accountKey, accountCreated: subject.accountCreated, peer: subject.peer,
                     address: subject.address, device: subject.device)
    }

    func matches(_ ban: Ban, _ subject: PolicySubject) -> Bool {
        ban.matches(account: subject.accountKey, accountCreated: subject.accountCreated, peer: subject.peer,
                    address: subject.address, device: subject.device)
    }

    func isInvited(_ subject: PolicySubject, in settings: RoomSettings) -> Bool {
        if let key = subject.accountKey, settings.invites.contains(.account(key)) { return true }
        if settings.invites.contains(.peer(subject.peer)) { return true }
        return subject.device.map { settings.invites.contains(.device($0)) } ?? false
    }

    /// The server ban that applies to the subject, if any; never to a server operator.
    func serverBan(of subject: PolicySubject) -> Ban? {
        guard !serverBans.isEmpty, !isServerOperator(subject.accountKey) else { return nil }
        return serverBans.first(matching: subject.accountKey, accountCreated: subject.accountCreated, peer: subject.peer,
                                address: subject.address, device: subject.device)
    }

    /// A stored change in memory: a server ban's, or a held room's (a room not held is read
    /// whole when it is next needed).
    mutating func apply(_ change: PolicyChange) {
        switch change {
        case .banAdded(nil, let ban): serverBans.insert(ban)
        case .banRemoved(nil, let label): serverBans.remove(label: label)
        default:
            if let room = change.room { rooms[room]?.apply(change) }
        }
    }
}
