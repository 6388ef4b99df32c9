import ChatProtocol

/// Room operators (PROTOCOL.md section 8): `claim`, `topic`, `mode`, `op`/`deop`, `invite`. The
/// asker must be in the room; each change is stored before it is announced as a room event (with
/// seq, stored, to every member). A request that changes nothing (a mode already set, an operator
/// already one) is answered to the asker alone with the same event without seq.
extension ChatServerState {
    /// A user's target of a moderation request: a connected nick (its account when logged in) or an
    /// account by name.
    struct ModerationTarget {
        /// The name the event names: the account's, or a guest's nick.
        let label: String
        let accountName: String?
        let session: ClientSession?
        /// A guest of another node (a shared store): its device's digest, and its address as its
        /// device's lease names it.
        var device: String? = nil
        var address: String? = nil

        var accountKey: String? { accountName.map(ChatValidation.nickKey) }
    }

    func handleClaim(_ request: ChatMessage, from session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        guard let account = session.account else {
            sendError(.notLoggedIn, "log in (or register) to claim a room", id: request.id, to: session, into: &out)
            return
        }
        guard let (room, settings) = moderatedRoom(request, from: session, minimum: .guest, into: &out) else { return }
        if let owner = settings.owner {
            sendError(.roomOwned, "room '\(room)' is owned by '\(owner)'", id: request.id, room: room, to: session, into: &out)
            return
        }
        if room == ChatLimits.defaultRoom, !configuration.lobbyClaimable, privilege(of: session, in: settings) < .serverOperator {
            sendError(.notOperator, "'\(room)' is everyone's first room: only a server operator may claim it", id: request.id, room: room,
                      to: session, into: &out)
            return
        }
        guard save(.owner(room: room, account: account), request: request, to: session, into: &out) else { return }
        announce(.op, in: room, by: session, text: "owner", target: account, withOperators: true, purpose: .claim(id: request.id), now: now,
                 into: &out)
    }

    func handleTopic(_ request: ChatMessage, from session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        guard let (room, settings) = moderatedRoom(request, from: session, minimum: .guest, into: &out) else { return }
        // In a room without owner anyone in it may (PROTOCOL.md section 8).
        if settings.owner != nil, privilege(of: session, in: settings) < .roomOperator {
            sendError(.notOperator, "only the operators of room '\(room)' may set its topic", id: request.id, room: room, to: session,
                      into: &out)
            return
        }
        let text: String
        do {
            text = try ChatValidation.sanitizeTopic(request.text)
        } catch {
            sendError(.tooLarge, "a topic is at most \(ChatLimits.maxTopicBytes) bytes", id: request.id, to: session, into: &out)
            return
        }
        let topic = text.isEmpty ? nil : RoomTopic(text: text, setBy: session.nick, ts: now)
        guard save(.topic(room: room, topic), request: request, to: session, into: &out) else { return }
        announce(.topic, in: room, by: session, text: text, now: now, into: &out)
    }

    func handleMode(_ request: ChatMessage, from session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        guard let (room, settings) = moderatedRoom(request, from: session, minimum: .roomOperator, into: &out) else { return }
        guard let change = request.mode.flatMap(RoomModeChange.init) else {
            sendError(.badField, "mode is +invite, -invite, +registered or -registered", id: request.id, to: session, into: &out)
            return
        }
        guard settings.modes.contains(change.mode) != change.isOn else {
            return confirm(.mode, in: room, to: session, mode: change.description, now: now, into: &out)
        }
        guard save(.mode(room: room, change.mode, on: change.isOn), request: request, to: session, into: &out) else { return }
        announce(.mode, in: room, by: session, mode: change.description, now: now, into: &out)
    }

    /// `op` and `deop`, by the owner (or a server operator): ACCOUNT by name, or a logged-in nick.
    func handleOperatorChange(_ request: ChatMessage, from session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        let adding = request.messageType == .op
        guard let (room, settings) = moderatedRoom(request, from: session, minimum: .owner, into: &out),
              let target = moderationTarget(request, from: session, into: &out) else { return }
        guard let account = target.accountName, let key = target.accountKey else {
            sendError(.noSuchUser, "'\(target.label)' is not logged in to an account", id: request.id, to: session, into: &out)
            return
        }
        let kind: StoredEventKind = adding ? .op : .deop
        if key == settings.ownerKey {
            guard adding else {
                sendError(.notOperator, "the owner of room '\(room)' is always one of its operators", id: request.id, room: room,
                          to: session, into: &out)
                return
            }
            return confirm(kind, in: room, to: session, target: account, now: now, into: &out)
        }
        guard (settings.operators[key] != nil) != adding else {
            return confirm(kind, in: room, to: session, target: account, now: now, into: &out)
        }
        if adding, settings.operators.count >= configuration.maxOperatorsPerRoom {
            sendError(.quotaExceeded, "a room has at most \(configuration.maxOperatorsPerRoom) operators", id: request.id, room: room,
                      to: session, into: &out)
            return
        }
        let change: PolicyChange = adding ? .operatorAdded(room: room, account: account) : .operatorRemoved(room: room, account: account)
        guard save(change, request: request, to: session, into: &out) else { return }
        announce(kind, in: room, by: session, target: account, withOperators: true, now: now, into: &out)
    }

    /// `invite`: lets a nick's account (a guest: its peer) into an invite-only room; the invited
    /// connections get `invite`, and so does the asker (with `to`), as the answer. Invites persist
    /// until the room is gone from the store; a ban still wins over an invite.
    func handleInvite(_ request: ChatMessage, from session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        guard let (room, settings) = moderatedRoom(request, from: session, minimum: .roomOperator, into: &out),
              let target = moderationTarget(request, from: session, remoteGuests: true, into: &out) else { return }
        invite(target, to: room, settings: settings, request: request, from: session, now: now, into: &out)
    }

    /// Stores the invite (when new) and tells the invited connections of this node and the asker.
    func invite(_ target: ModerationTarget, to room: String, settings: RoomSettings, request: ChatMessage, from session: ClientSession,
                now: Int64, into out: inout [ServerAction]) {
        let invitee: Invitee = target.accountKey.map(Invitee.account) ?? target.session.map { .peer($0.peer) }
            ?? .device(target.device ?? "")
        if !settings.invites.contains(invitee) {
            guard settings.invites.count < configuration.maxInvitesPerRoom else {
                sendError(.quotaExceeded, "a room keeps at most \(configuration.maxInvitesPerRoom) invites", id: request.id, room: room,
                          to: session, into: &out)
                return
            }
            guard save(.inviteAdded(room: room, invitee), request: request, to: session, into: &out) else { return }
        }
        let notice = SharedPayload(line: ChatMessage(.invite, sender: session.nick, room: room, ts: now))
        for invited in connections(of: target) where invited !== session {
            sendChat(notice, to: invited, into: &out)
        }
        sendChat(ChatMessage(type: MessageType.invite.rawValue, sender: session.nick, room: room, ts: now, to: target.label),
                 to: session, into: &out)
        out.append(.log(.info, "invite", logFields(session, ["room": room, "to": target.label])))
    }

    // MARK: Shared by the moderation requests

    /// The request's room, which the asker must be in, with its settings, when the asker has at
    /// least `minimum` there; otherwise nil after answering `bad-room`, `not-joined`,
    /// `unavailable` or `not-operator`.
    func moderatedRoom(_ request: ChatMessage, from session: ClientSession, minimum: Privilege,
                       into out: inout [ServerAction]) -> (String, RoomSettings)? {
        guard let room = ChatValidation.normalizeRoom(request.roomOrDefault) else {
            sendError(.badRoom, id: request.id, to: session, into: &out)
            return nil
        }
        guard session.isMember(of: room) else {
            sendError(.notJoined, "you are not in room '\(room)'", id: request.id, to: session, into: &out)
            return nil
        }
        guard let settings = settings(of: room, into: &out) else {
            sendError(.unavailable, "room '\(room)' cannot be checked right now; try again", id: request.id, room: room, to: session,
                      into: &out)
            return nil
        }
        guard privilege(of: session, in: settings) >= minimum else {
            let who = minimum >= .owner ? "the owner" : "an operator"
            sendError(.notOperator, "only \(who) of room '\(room)' may do that", id: request.id, room: room, to: session, into: &out)
            return nil
        }
        return (room, settings)
    }

    /// `to` of a request as a connected nick or an account name; nil after `no-such-user`.
    /// With `remoteGuests` (an `invite` or a `ban`, with a shared store), a nick found nowhere here
    /// is looked up in the store (``beginRemoteInvite``, ``beginRemoteBan``): nil then, and no
    /// error; the request goes on when the answer comes.
    func moderationTarget(_ request: ChatMessage, from session: ClientSession, remoteGuests: Bool = false,
                          into out: inout [ServerAction]) -> ModerationTarget? {
        let name = request.to ?? ""
        if let connected = activeSession(forNick: name) {
            return ModerationTarget(label: connected.account ?? connected.nick, accountName: connected.account, session: connected)
        }
        // A member of another node (a shared store), logged in: its account. (A guest of another
        // node is known here by nick and device only: an invite takes the device; a ban looks the
        // device's lease up for its address, below.)
        if let room = request.room.flatMap(ChatValidation.normalizeRoom),
           let member = rooms[room]?.remote.records[ChatValidation.nickKey(name)] {
            if let account = member.account { return ModerationTarget(label: account, accountName: account, session: nil) }
            if let device = member.device, request.messageType == .invite {
                return ModerationTarget(label: member.nick, accountName: nil, session: nil, device: device)
            }
        }
        switch lookUpAccount(name, for: request, from: session, into: &out) {
        case .unreadable: return nil
        case .found(let account): return ModerationTarget(label: account.name, accountName: account.name, session: nil)
        case .none: break
        }
        if remoteGuests, ChatValidation.isValidNick(name) {
            if request.messageType == .ban {
                beginRemoteBan(request, from: session, into: &out)
            } else {
                beginRemoteInvite(request, from: session, into: &out)
            }
            return nil
        }
        sendError(.noSuchUser, "no user or account '\(ChatValidation.excerpt(name))'", id: request.id, to: session, into: &out)
        return nil
    }

    /// Every connection a target names: all of an account's, or the one guest.
    func connections(of target: ModerationTarget) -> [ClientSession] {
        guard let key = target.accountKey else { return target.session.map { [$0] } ?? [] }
        return clients.values.filter { $0.phase == .active && $0.accountKey == key }.sorted { $0.id < $1.id }
    }

    /// ``save(_:into:)`` that answers `unavailable` when the store fails.
    func save(_ change: PolicyChange, request: ChatMessage, to session: ClientSession, into out: inout [ServerAction]) -> Bool {
        guard save(change, into: &out) else {
            sendError(.unavailable, "the change could not be stored; try again", id: request.id, room: change.room, to: session,
                      into: &out)
            return false
        }
        return true
    }

    /// A moderation room event: stored with the room's next seq, then sent to every member.
    /// `removing` (a ban's) lists, live only, the nicks the event takes out of the room.
    func announce(_ kind: StoredEventKind, in room: String, by session: ClientSession, text: String = "", target: String? = nil,
                  mode: String? = nil, withOperators: Bool = false, removing: [String]? = nil,
                  purpose: AppendPurpose = .announcement(id: nil), now: Int64, into out: inout [ServerAction]) {
        announce(kind, in: room, sender: session.nick, text: text, target: target, mode: mode, withOperators: withOperators,
                 removing: removing, purpose: purpose, now: now, into: &out)
        out.append(.log(.info, kind.rawValue, logFields(session, ["room": room, "to": target ?? mode ?? ""])))
    }

    func announce(_ kind: StoredEventKind, in room: String, sender: String, text: String = "", target: String? = nil,
                  mode: String? = nil, withOperators: Bool = false, removing: [String]? = nil,
                  purpose: AppendPurpose = .announcement(id: nil), now: Int64, into out: inout [ServerAction]) {
        let event = StoredEvent(room: room, seq: 0, ts: now, kind: kind, sender: sender, text: text, target: target, mode: mode)
        let origin = activeSession(forNick: sender)
        // A kick or ban takes its targets out of the room's members on every node.
        let leaving: [String]? = kind == .kicked ? target.map { [$0] } : kind == .banned ? removing : nil
        // With a shared store the change this event announces is stored with it (``save``).
        let policy = policyToAnnounce?.room == room ? policyToAnnounce : nil
        let settingsBefore = policy == nil ? nil : settingsBeforeAnnounce
        policyToAnnounce = nil
        settingsBeforeAnnounce = nil
        record([RoomEventDraft(event: event, ops: liveOperators(of: room, ifIncluding: nil, always: withOperators), removing: removing,
                               origin: origin, purpose: purpose,
                               membership: leaving.map { .remove($0.map(ChatValidation.nickKey)) }, policy: policy,
                               settingsBefore: settingsBefore)],
               now: now, into: &out)
    }

    /// The answer to a request that changed nothing: its event, to the asker alone, without seq.
    func confirm(_ kind: StoredEventKind, in room: String?, to session: ClientSession, text: String = "", target: String? = nil,
                 mode: String? = nil, now: Int64, into out: inout [ServerAction]) {
        sendChat(ChatMessage(type: kind.rawValue, text: text, sender: session.nick, room: room, ts: now, to: target, mode: mode),
                 to: session, into: &out)
    }
}
