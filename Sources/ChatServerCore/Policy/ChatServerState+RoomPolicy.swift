import ChatProtocol

/// Who may be where (PROTOCOL.md section 8): the settings of each room, cached for every room with
/// members so that ordinary messages never ask the account store, and the questions of
/// ``Policies`` asked about connections.
extension ChatServerState {
    /// The settings of `room` when cached; nil when not: they are read from the store
    /// (``awaitSettings``).
    func settings(of room: String, into out: inout [ServerAction]) -> RoomSettings? {
        policies.rooms[room]
    }

    /// Stores a change, then applies it to the cache; false (after a log line) when the store
    /// failed, and then nothing changed. With a shared store, a change a room event announces is
    /// stored with that event (the next ``announce``), and applied on every node when it is
    /// delivered; an invite or a server ban is written on its own.
    func save(_ change: PolicyChange, into out: inout [ServerAction]) -> Bool {
        switch change {
        case .inviteAdded, .banAdded(nil, _), .banRemoved(nil, _):
            out.append(.writePolicy(change))
            applyLocally(change)
        case .owner, .topic, .mode, .operatorAdded, .operatorRemoved, .banAdded, .banRemoved:
            // Applied here at once too (the announcement's `ops` see it); should the event not
            // be stored, they are put back and the room's settings read again.
            policyToAnnounce = change
            settingsBeforeAnnounce = change.room.flatMap { policies.rooms[$0] }
            applyLocally(change)
        }
        return true
    }

    /// A stored change in the caches.
    func applyLocally(_ change: PolicyChange) {
        policies.apply(change)
    }

    /// What the policies are asked about a connection: its account, peer id, address and (with
    /// a shared store) device.
    func subject(of session: ClientSession) -> PolicySubject {
        PolicySubject(accountKey: session.accountKey, accountCreated: session.accountCreated, peer: session.peer,
                      address: session.address, device: device(of: session))
    }

    func isServerOperator(_ session: ClientSession) -> Bool {
        policies.isServerOperator(session.accountKey)
    }

    /// What `session` may do in a room with these settings.
    func privilege(of session: ClientSession, in settings: RoomSettings) -> Privilege {
        policies.privilege(ofAccount: session.accountKey, in: settings)
    }

    /// The same for an account by key (nil: a guest), connected or not.
    func privilege(ofAccount key: String?, in settings: RoomSettings) -> Privilege {
        policies.privilege(ofAccount: key, in: settings)
    }

    /// Why `session` may not join a room, or nil (``Policies/joinDenial(of:settings:room:)``).
    func joinDenial(of session: ClientSession, settings: RoomSettings, room: String) -> (ErrorCode, String)? {
        if settings.restrictsNobody { return nil }
        return policies.joinDenial(of: subject(of: session), settings: settings, room: room)
    }

    /// Why a member may not speak in `room`, or nil. One dictionary read for a room without bans
    /// or modes, the common case.
    func speakingDenial(of session: ClientSession, in room: String) -> (ErrorCode, String)? {
        guard let settings = policies.rooms[room], !settings.restrictsNobody else { return nil }
        return policies.speakingDenial(of: subject(of: session), in: room, settings: settings)
    }

    func isBanned(_ session: ClientSession, in settings: RoomSettings) -> Bool {
        policies.isBanned(subject(of: session), in: settings)
    }

    /// Whether a ban of `bans` matches the connection (with a shared store, by its device too).
    func matches(_ bans: BanList, _ session: ClientSession) -> Bool {
        policies.matches(bans, subject(of: session))
    }

    func matches(_ ban: Ban, _ session: ClientSession) -> Bool {
        policies.matches(ban, subject(of: session))
    }

    /// With a shared store, the digest of the connection's peer id (how the store names its
    /// device), computed once; nil with a local store, where no ban names a device.
    func device(of session: ClientSession) -> String? {
        guard session.phase == .active else { return nil }
        if let cached = session.cachedDevice { return cached }
        session.cachedDevice = peerDigest(session.peer)
        return session.cachedDevice
    }

    /// The server ban that applies to this identity (`created`: when its account was
    /// registered), if any.
    func serverBan(account: String?, created: Int64?, peer: String, address: String) -> Ban? {
        guard !policies.serverBans.isEmpty else { return nil }
        return policies.serverBan(of: PolicySubject(accountKey: account.map(ChatValidation.nickKey), accountCreated: created, peer: peer,
                                                    address: address, device: peerDigest(peer)))
    }

    /// Nicks of the room's operators present (owner included), sorted as rosters are.
    func operatorNicks(of room: String) -> [String] {
        guard let settings = policies.rooms[room], settings.owner != nil || !settings.operators.isEmpty else { return [] }
        return memberNicks(of: room) { settings.isOperator($0.map(ChatValidation.nickKey)) }
    }

    /// Nicks of the room's members logged in to an account.
    func identifiedNicks(of room: String) -> [String] {
        memberNicks(of: room) { $0 != nil }
    }
}
