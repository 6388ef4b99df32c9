import ChatProtocol

/// `kick`, `ban` and `unban` (PROTOCOL.md section 8), of a room or, without `room`, of the whole
/// server (server operators only). A target may not rank above the one who asks (``Privilege``).
/// A kicked or banned member gets the event too and is no longer in the room: the event takes the
/// place of its `left`.
extension ChatServerState {
    func handleKick(_ request: ChatMessage, from session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        guard let reason = reason(of: request, from: session, into: &out) else { return }
        guard request.room != nil else { return kickFromServer(request, reason: reason, by: session, now: now, into: &out) }
        guard let (room, settings) = moderatedRoom(request, from: session, minimum: .roomOperator, into: &out) else { return }
        let local = activeSession(forNick: request.to ?? "").flatMap { $0.isMember(of: room) ? $0 : nil }
        // With a shared store, a member of another node is kicked by its nick: its node takes it
        // out when the `kicked` is delivered.
        let remote = local == nil ? rooms[room]?.remote.records[ChatValidation.nickKey(request.to ?? "")] : nil
        guard let nick = local?.nick ?? remote?.nick else {
            sendError(.noSuchUser, "no user '\(ChatValidation.excerpt(request.to ?? ""))' in room '\(room)'", id: request.id, room: room,
                      to: session, into: &out)
            return
        }
        let targetKey = local?.accountKey ?? remote?.account.map(ChatValidation.nickKey)
        guard outranks(session, targetKey, in: settings, request: request, room: room, into: &out) else { return }
        announce(.kicked, in: room, by: session, text: reason, target: nick, now: now, into: &out)
    }

    /// `resolved`: the target a lookup in the shared store found (a user of another node); the
    /// request is checked again, as it may have waited.
    func handleBan(_ request: ChatMessage, from session: ClientSession, resolved: ModerationTarget? = nil, now: Int64,
                   into out: inout [ServerAction]) {
        guard let reason = reason(of: request, from: session, into: &out) else { return }
        guard request.room != nil else {
            return banFromServer(request, reason: reason, by: session, resolved: resolved, now: now, into: &out)
        }
        guard let (room, settings) = moderatedRoom(request, from: session, minimum: .roomOperator, into: &out),
              let target = resolved ?? moderationTarget(request, from: session, remoteGuests: true, into: &out),
              outranks(session, target.accountKey, in: settings, request: request, room: room, into: &out) else { return }
        let ban = makeBan(of: target, reason: reason, by: session.nick, now: now)
        guard settings.bans.ban(labelled: ban.label) == nil else {
            return confirm(.banned, in: room, to: session, text: reason, target: ban.label, now: now, into: &out)
        }
        guard settings.bans.count < configuration.maxBansPerRoom else {
            sendError(.quotaExceeded, "a room keeps at most \(configuration.maxBansPerRoom) bans; lift one first", id: request.id,
                      room: room, to: session, into: &out)
            return
        }
        guard save(.banAdded(room: room, ban), request: request, to: session, into: &out) else { return }
        let banned = members(of: room, matching: ban)
        announce(.banned, in: room, by: session, text: reason, target: ban.label,
                 removing: banned.map(\.nick) + remoteMembers(of: room, matching: ban), now: now, into: &out)
    }

    func handleUnban(_ request: ChatMessage, from session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        let name = request.to ?? ""
        guard request.room != nil else { return unbanFromServer(request, by: session, now: now, into: &out) }
        guard let (room, settings) = moderatedRoom(request, from: session, minimum: .roomOperator, into: &out) else { return }
        guard let ban = settings.bans.ban(labelled: name) else {
            sendError(.noSuchUser, "'\(ChatValidation.excerpt(name))' is not banned from room '\(room)'", id: request.id, room: room,
                      to: session, into: &out)
            return
        }
        guard save(.banRemoved(room: room, label: ban.label), request: request, to: session, into: &out) else { return }
        announce(.unbanned, in: room, by: session, target: ban.label, now: now, into: &out)
    }

    // MARK: The whole server

    /// `kick` without `room`: closes the target with KICKED after a `kicked` naming the operator.
    private func kickFromServer(_ request: ChatMessage, reason: String, by session: ClientSession, now: Int64,
                                into out: inout [ServerAction]) {
        guard isServerOperator(session) else {
            sendError(.notOperator, "only server operators may kick from the server", id: request.id, to: session, into: &out)
            return
        }
        guard let target = activeSession(forNick: request.to ?? "") else {
            // The user may be on another node: that node kicks it.
            return beginRemoteKick(nick: request.to ?? "", reason: reason, by: session.nick, requester: session.id, into: &out)
        }
        let notice = ChatMessage(.kicked, text: reason, sender: session.nick, ts: now)
        var withTarget = notice
        withTarget.to = target.nick
        if target !== session { sendChat(withTarget, to: session, into: &out) }
        sendChat(withTarget, to: target, into: &out)
        close(target, with: .kicked, reason: reason.isEmpty ? "kicked by \(session.nick)" : reason, now: now, into: &out)
    }

    private func banFromServer(_ request: ChatMessage, reason: String, by session: ClientSession, resolved: ModerationTarget?, now: Int64,
                               into out: inout [ServerAction]) {
        guard isServerOperator(session) else {
            sendError(.notOperator, "only server operators may ban from the server", id: request.id, to: session, into: &out)
            return
        }
        guard let target = resolved ?? moderationTarget(request, from: session, remoteGuests: true, into: &out) else { return }
        if let key = target.accountKey, policies.operatorKeys.contains(key) {
            sendError(.notOperator, "a server operator cannot be banned", id: request.id, to: session, into: &out)
            return
        }
        let ban = makeBan(of: target, reason: reason, by: session.nick, now: now)
        if policies.serverBans.ban(labelled: ban.label) == nil {
            guard policies.serverBans.count < configuration.maxServerBans else {
                sendError(.quotaExceeded, "the server keeps at most \(configuration.maxServerBans) bans; lift one first", id: request.id,
                          to: session, into: &out)
                return
            }
            guard save(.banAdded(room: nil, ban), request: request, to: session, into: &out) else { return }
        }
        sendChat(ChatMessage(type: MessageType.banned.rawValue, text: reason, sender: session.nick, ts: now, to: ban.label),
                 to: session, into: &out)
        closeServerBanned(ban, by: session.nick, now: now, into: &out)
    }

    private func unbanFromServer(_ request: ChatMessage, by session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        guard isServerOperator(session) else {
            sendError(.notOperator, "only server operators may lift server bans", id: request.id, to: session, into: &out)
            return
        }
        let name = request.to ?? ""
        guard let ban = policies.serverBans.ban(labelled: name) else {
            sendError(.noSuchUser, "'\(ChatValidation.excerpt(name))' is not banned from the server", id: request.id, to: session,
                      into: &out)
            return
        }
        guard save(.banRemoved(room: nil, label: ban.label), request: request, to: session, into: &out) else { return }
        sendChat(ChatMessage(type: MessageType.unbanned.rawValue, sender: session.nick, ts: now, to: ban.label), to: session, into: &out)
    }

    /// Closes with BANNED every connection a new server ban matches, each after a `banned`.
    func closeServerBanned(_ ban: Ban, by operatorNick: String, now: Int64, into out: inout [ServerAction]) {
        let matching = clients.values.filter { $0.phase == .active && matches(ban, $0) }
        for target in matching.sorted(by: { $0.id < $1.id }) {
            sendChat(ChatMessage(type: MessageType.banned.rawValue, text: ban.reason, sender: operatorNick, ts: now, to: ban.label),
                     to: target, into: &out)
            close(target, with: .banned, reason: ban.reason.isEmpty ? "banned from this server" : ban.reason, now: now, into: &out)
        }
    }

    // MARK: Shared

    /// An account ban, or for a guest a ban of its peer id and address (a guest of another node:
    /// of its device and address, as its device's lease names them).
    func makeBan(of target: ModerationTarget, reason: String, by: String, now: Int64) -> Ban {
        if let key = target.accountKey { return Ban(label: target.label, account: key, reason: reason, by: by, ts: now) }
        let address = target.session?.address ?? target.address ?? ""
        return Ban(label: target.label, peer: target.session?.peer, address: address.isEmpty ? nil : address, device: target.device,
                   reason: reason, by: by, ts: now)
    }

    /// Whether `session` may act on a target of this account (nil: a guest) in the room;
    /// otherwise answers `not-operator`.
    private func outranks(_ session: ClientSession, _ targetKey: String?, in settings: RoomSettings, request: ChatMessage, room: String,
                          into out: inout [ServerAction]) -> Bool {
        guard privilege(ofAccount: targetKey, in: settings) <= privilege(of: session, in: settings) else {
            sendError(.notOperator, "you cannot do that to someone who ranks above you in room '\(room)'", id: request.id, room: room,
                      to: session, into: &out)
            return false
        }
        return true
    }

    /// The reason of a kick or ban, one line of at most 512 bytes; nil after `too-large`.
    private func reason(of request: ChatMessage, from session: ClientSession, into out: inout [ServerAction]) -> String? {
        do {
            return try ChatValidation.sanitizeTopic(request.text)
        } catch {
            sendError(.tooLarge, "a reason is at most \(ChatLimits.maxTopicBytes) bytes", id: request.id, to: session, into: &out)
            return nil
        }
    }

    /// The members of a room a ban matches, in a stable order.
    func members(of room: String, matching ban: Ban) -> [ClientSession] {
        (rooms[room]?.members ?? [:]).values
            .filter { matches(ban, $0) }
            .sorted { $0.id < $1.id }
    }

    /// The nicks of the members of other nodes a new ban of a room names (logged in to the banned
    /// account, or the guest of another node whose nick was just looked up), sorted: their nodes
    /// take them out when they deliver the `banned`. (Other guests of other nodes it matches by
    /// address leave when their nodes read the ban.)
    func remoteMembers(of room: String, matching ban: Ban) -> [String] {
        (rooms[room]?.remote.records.values ?? [:].values).filter { member in
            if let account = ban.account { return member.account.map(ChatValidation.nickKey) == account }
            return ban.device != nil && member.account == nil && member.key == ban.key
        }.map(\.nick).sorted()
    }

    /// Takes members out of a room after the event that removed them (no `left`). With a local
    /// store right after the event; with a shared log when the event is delivered (on every node).
    func removeFromRoom(_ members: [ClientSession], _ room: String, into out: inout [ServerAction]) {
        for member in members {
            member.rooms.remove(room)
            removeMember(member.id, from: room, into: &out)
        }
    }
}
