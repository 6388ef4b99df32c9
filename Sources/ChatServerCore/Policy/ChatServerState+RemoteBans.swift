import ChatProtocol

/// With a shared store: a `ban` of a nick held through another node (issue 23, item 9), asked by
/// a server or room operator or typed on the operator console (the second look). The nick's
/// lease names the device holding it (the digest of its peer id) and its node; the device's lease
/// adds its account and its address. A logged-in user is banned by account, a guest by device and
/// address (its peer id is never in the store: the device's digest stands for it, and every node
/// matches it against its own connections' peer ids). The `banned` event names the nick in
/// `members` when it is in the room, so its node takes it out when it delivers the event, as for
/// any ban.
extension ChatServerState {
    /// Looks the nick `request.to` up; `session` is the asker, nil for the operator console.
    func beginRemoteBan(_ request: ChatMessage, from session: ClientSession?, into out: inout [ServerAction]) {
        let token = nextIdentityToken(.ban(session?.id, request: request))
        out.append(.lookUpDevice(token, nick: request.to ?? ""))
    }

    /// The answer to ``ServerAction/lookUpDevice(_:nick:)``: the device holding the nick, if any.
    /// The ban goes on as it began: the asker's request, or the console's command (whose answer
    /// is a ``ServerAction/consoleLine(_:)``).
    public func deviceLookedUp(_ token: UInt64, _ outcome: ClaimOutcome<DeviceHolder?>, now: Int64) -> [ServerAction] {
        guard case .ban(let client, let request)? = pendingIdentities.removeValue(forKey: token) else {
            return [.log(.warning, "unknown device lookup", ["token": String(token)])]
        }
        let nick = request.to ?? ""
        let target: ModerationTarget?
        let refusal: (code: ErrorCode, text: String)
        switch outcome {
        case .failed(let reason):
            target = nil
            refusal = (.unavailable, client == nil ? "'\(ChatValidation.excerpt(nick))' could not be looked up (\(reason)); try again"
                                                   : "the user could not be looked up; try again")
        case .answered(let holder?) where !holder.isThisNode:
            target = holder.account.map { ModerationTarget(label: $0, accountName: $0, session: nil) }
                ?? ModerationTarget(label: nick, accountName: nil, session: nil, device: holder.device, address: holder.address)
            refusal = (.noSuchUser, "")
        case .answered:
            target = nil
            refusal = (.noSuchUser, "no user or account '\(ChatValidation.excerpt(nick))'")
        }
        guard let client else {
            guard let target else { return [.consoleLine(refusal.text)] }
            return consoleBan(target, room: request.room, reason: request.text, now: now)
        }
        guard let session = clients[client], session.phase == .active else { return [] }
        var out: [ServerAction] = []
        if let target {
            handleBan(request, from: session, resolved: target, now: now, into: &out)
        } else {
            sendError(refusal.code, refusal.text, id: request.id, room: refusal.code == .unavailable ? request.room : nil, to: session,
                      into: &out)
        }
        return out
    }
}
