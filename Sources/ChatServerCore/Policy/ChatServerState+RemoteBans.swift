import ChatProtocol

/// With a shared store: a `ban` of a nick held through another node (issue 23, item 9). The
/// nick's lease names the device holding it (the digest of its peer id) and its node; the
/// device's lease adds its account and its address. A logged-in user is banned by account, a
/// guest by device and address (its peer id is never in the store: the device's digest stands for
/// it, and every node matches it against its own connections' peer ids). The `banned` event names
/// the nick in `members` when it is in the room, so its node takes it out when it delivers the
/// event, as for any ban.
extension ChatServerState {
    func beginRemoteBan(_ request: ChatMessage, from session: ClientSession, into out: inout [ServerAction]) {
        let token = nextIdentityToken(.ban(session.id, request: request))
        out.append(.lookUpDevice(token, nick: request.to ?? ""))
    }

    /// The answer to ``ServerAction/lookUpDevice(_:nick:)``: the device holding the nick, if any.
    public func deviceLookedUp(_ token: UInt64, _ outcome: ClaimOutcome<DeviceHolder?>, now: Int64) -> [ServerAction] {
        guard case .ban(let client, let request)? = pendingIdentities.removeValue(forKey: token) else {
            return [.log(.warning, "unknown device lookup", ["token": String(token)])]
        }
        guard let session = clients[client], session.phase == .active else { return [] }
        var out: [ServerAction] = []
        let nick = request.to ?? ""
        switch outcome {
        case .failed:
            sendError(.unavailable, "the user could not be looked up; try again", id: request.id, room: request.room, to: session,
                      into: &out)
        case .answered(let holder?) where !holder.isThisNode:
            let target = holder.account.map { ModerationTarget(label: $0, accountName: $0, session: nil) }
                ?? ModerationTarget(label: nick, accountName: nil, session: nil, device: holder.device, address: holder.address)
            handleBan(request, from: session, resolved: target, now: now, into: &out)
        case .answered:
            sendError(.noSuchUser, "no user or account '\(ChatValidation.excerpt(nick))'", id: request.id, to: session, into: &out)
        }
        return out
    }
}
