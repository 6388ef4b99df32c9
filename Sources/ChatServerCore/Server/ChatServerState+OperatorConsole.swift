import ChatProtocol

/// What the operator types on the server's terminal (`ban`, `unban`, `op`, `deop`; `kick` is in
/// +Departure): the same effects as a server operator's requests, the server's name as `sender`.
/// Each returns the actions and a line for the terminal.
extension ChatServerState {
    /// Bans NAME (a connected nick: its account, a guest its peer and address; or an account) from
    /// `room`, or from the server when `room` is nil. With a shared store a nick found nowhere
    /// here is looked up in the store, as a server operator's `ban` of it is (a user of another
    /// node, ``beginRemoteBan``), and the ban goes on with the answer. The terminal's line comes as
    /// a ``ServerAction/consoleLine(_:)``: `banned NAME ...` once the ban is stored (with a shared
    /// store: handed to it, as for a server operator's), or why not.
    public func operatorBan(_ name: String, room: String?, reason: String, now: Int64) -> [ServerAction] {
        var out: [ServerAction] = []
        if let target = consoleTarget(name, into: &out) { return out + consoleBan(target, room: room, reason: reason, now: now) }
        guard ChatValidation.isValidNick(name) else { return out + [.consoleLine("no user or account '\(name)'")] }
        beginRemoteBan(.ban(room: room, target: name, reason: reason), from: nil, into: &out)
        return out
    }

    /// The console's ban of a target found (here, or through the store).
    func consoleBan(_ target: ModerationTarget, room: String?, reason: String, now: Int64) -> [ServerAction] {
        var out: [ServerAction] = []
        let reason = (try? ChatValidation.sanitizeTopic(reason)) ?? ""
        let ban = makeBan(of: target, reason: reason, by: configuration.serverName, now: now)
        guard let room else {
            // Bounded as a server operator's bans are; a ban of the same label again only closes.
            if policies.serverBans.ban(labelled: ban.label) == nil {
                guard policies.serverBans.count < configuration.maxServerBans else {
                    return out + [.consoleLine("the server keeps at most \(configuration.maxServerBans) bans; unban one first")]
                }
                guard save(.banAdded(room: nil, ban), into: &out) else { return out + [.consoleLine("the ban could not be stored")] }
            }
            closeServerBanned(ban, by: configuration.serverName, now: now, into: &out)
            return out + [.consoleLine("banned \(ban.label) from the server")]
        }
        guard let settings = settings(of: room, into: &out) else { return out + [.consoleLine("room \(room) cannot be read")] }
        guard settings.bans.count < configuration.maxBansPerRoom else { return out + [.consoleLine("room \(room) keeps no more bans")] }
        guard save(.banAdded(room: room, ban), into: &out) else { return out + [.consoleLine("the ban could not be stored")] }
        let banned = members(of: room, matching: ban)
        announce(.banned, in: room, sender: configuration.serverName, text: reason, target: ban.label,
                 removing: banned.map(\.nick) + remoteMembers(of: room, matching: ban), now: now, into: &out)
        return out + [.consoleLine("banned \(ban.label) from \(room)")]
    }

    /// Lifts a ban of `room`, or of the server when nil.
    public func operatorUnban(_ name: String, room: String?, now: Int64) -> (actions: [ServerAction], answer: String) {
        var out: [ServerAction] = []
        guard let room else {
            guard let ban = policies.serverBans.ban(labelled: name) else { return (out, "\(name) is not banned from the server") }
            guard save(.banRemoved(room: nil, label: ban.label), into: &out) else { return (out, "the change could not be stored") }
            return (out, "lifted the server ban of \(ban.label)")
        }
        guard let settings = settings(of: room, into: &out), let ban = settings.bans.ban(labelled: name) else {
            return (out, "\(name) is not banned from \(room)")
        }
        guard save(.banRemoved(room: room, label: ban.label), into: &out) else { return (out, "the change could not be stored") }
        announce(.unbanned, in: room, sender: configuration.serverName, target: ban.label, now: now, into: &out)
        return (out, "lifted the ban of \(ban.label) from \(room)")
    }

    /// Makes an account an operator of `room` (`adding`), or takes it back.
    public func operatorSetOperator(_ name: String, room: String, adding: Bool, now: Int64) -> (actions: [ServerAction], answer: String) {
        var out: [ServerAction] = []
        guard let target = consoleTarget(name, into: &out), let account = target.accountName else {
            return (out, "no account '\(name)'")
        }
        guard settings(of: room, into: &out) != nil else { return (out, "room \(room) cannot be read") }
        let change: PolicyChange = adding ? .operatorAdded(room: room, account: account) : .operatorRemoved(room: room, account: account)
        guard save(change, into: &out) else { return (out, "the change could not be stored") }
        announce(adding ? .op : .deop, in: room, sender: configuration.serverName, target: account, withOperators: true, now: now,
                 into: &out)
        return (out, "\(account) is \(adding ? "now" : "no longer") an operator of \(room)")
    }

    private func consoleTarget(_ name: String, into out: inout [ServerAction]) -> ModerationTarget? {
        if let connected = activeSession(forNick: name) {
            return ModerationTarget(label: connected.account ?? connected.nick, accountName: connected.account, session: connected)
        }
        guard ChatValidation.isValidAccountName(name), let account = try? accounts.account(named: name) else { return nil }
        return ModerationTarget(label: account.name, accountName: account.name, session: nil)
    }
}
