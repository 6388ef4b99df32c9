import ChatProtocol

/// With a shared store: accounts read into this node's ``SharedAccountCache`` before the
/// requests that check them, and written through actions, answered once stored.
extension ChatServerState {

    /// The accounts a chat-stream request checks (the nick a hello asks for and its first
    /// suffixed forms, a login's account, a moderation target, ...).
    private func accountsNeeded(by message: ChatMessage, from session: ClientSession) -> [String] {
        if session.phase == .awaitingHello {
            guard message.messageType == .join else { return [] }
            // And the account of a session of this node the hello would take over (it must prove it).
            let held = message.peer.flatMap { activeChatStreams[$0.uppercased()] }.flatMap { clients[$0]?.account }
            return ChatValidation.freeNickCandidates(for: message.sender, count: Self.nickCandidatesPerClaim + 1) { _ in false }
                + (held.map { [$0] } ?? [])
        }
        switch message.messageType {
        case .nick: return [message.text]
        case .register: return [session.nick]
        case .login: return [message.sender]
        case .password, .certificate: return session.account.map { [$0] } ?? []
        case .op, .deop, .ban, .unban, .invite, .whois, .kick: return message.to.map { [$0] } ?? []
        default: return []
        }
    }

    /// Reads the accounts `message` needs when this node has not: the message is handled again
    /// once they are here (its connection's later messages wait). True when it waits.
    func prefetchAccounts(for message: ChatMessage, from session: ClientSession, into out: inout [ServerAction]) -> Bool {
        let cache = accounts
        let names = accountsNeeded(by: message, from: session).filter { ChatValidation.isValidAccountName($0) && !cache.isKnown($0) }
        guard !names.isEmpty else { return false }
        session.awaitsRoomLog = true
        session.heldMessages.insert(message, at: 0)
        out.append(.loadAccounts(nextAccountsToken(.prefetch(session.id, message)), names: names))
        return true
    }

    /// Accounts a check found unknown (an operator command, say): read in the background, so the
    /// next try finds them. The glue asks after an operator command.
    public func loadMissedAccounts() -> [ServerAction] {
        let missed = accounts.takeMissed()
        guard !missed.isEmpty else { return [] }
        return [.loadAccounts(nextAccountsToken(.background), names: missed.sorted())]
    }

    /// The answer to ``ServerAction/loadAccounts(_:names:)``: what the store has for each name
    /// (nil for a name with no account), or nil when it could not be read.
    public func accountsLoaded(_ token: UInt64, _ loaded: [String: LoadedAccount?]?, now: Int64) -> [ServerAction] {
        guard let pending = pendingAccounts.removeValue(forKey: token) else {
            return [.log(.warning, "unknown account read", ["token": String(token)])]
        }
        for (name, entry) in loaded ?? [:] {
            accounts.remember(name, account: entry?.account, certificates: entry?.certificates ?? [])
        }
        var out: [ServerAction] = []
        if case .recheck(let name) = pending, let loaded, let entry = loaded[name] {
            if entry.map({ $0.account.passwordHash == nil && $0.certificates.isEmpty }) ?? true {
                closeConnections(ofRetired: name, now: now, into: &out)
            }
            return out
        }
        if case .nickCandidates(let step) = pending { return resumeNickChoice(step, loaded: loaded != nil, now: now) }
        guard case .prefetch(let client, _) = pending, let session = clients[client] else { return out }
        session.awaitsRoomLog = false
        if loaded == nil, !session.heldMessages.isEmpty {
            // Handled again it would only wait again: it is refused instead, and sent again later.
            let refused = session.heldMessages.removeFirst()
            sendError(.unavailable, "accounts cannot be read right now; try again", id: refused.id, to: session, into: &out)
        }
        releaseHeldMessages(of: session, now: now, into: &out)
        return out
    }

    /// The names among nick candidates this node has not read from the shared store: a guest may
    /// be given none of them before it knows whether they are accounts.
    func unreadAccounts(among candidates: [String]) -> [String] {
        let cache = accounts
        return candidates.filter { ChatValidation.isValidAccountName($0) && !cache.isKnown($0) }
    }

    /// Reads `names` (when there are any) and then takes `step` again; true when it waits.
    func readAccounts(_ names: [String], then step: NickChoice, session: ClientSession, into out: inout [ServerAction]) -> Bool {
        guard !names.isEmpty else { return false }
        session.awaitsRoomLog = true
        out.append(.loadAccounts(nextAccountsToken(.nickCandidates(step)), names: names))
        return true
    }

    private func resumeNickChoice(_ step: NickChoice, loaded: Bool, now: Int64) -> [ServerAction] {
        var out: [ServerAction] = []
        switch step {
        case .hello(let client, let join, let peer, let account):
            guard let session = clients[client] else { return out }
            guard loaded else {
                storeUnavailable(for: join, session: session, why: "accounts could not be read", now: now, into: &out)
                return out
            }
            beginClusterHello(join, peer: peer, account: account, session: session, into: &out)
        case .helloNick(let client, let join, let peer, let account, let round):
            guard let session = clients[client] else { return out }
            guard loaded else {
                storeUnavailable(for: join, session: session, why: "accounts could not be read", now: now, into: &out)
                return out
            }
            claimHelloNick(join, peer: peer, account: account, round: round, session: session, into: &out)
        case .loginNick(let client, let request, let account):
            guard let session = clients[client] else { return out }
            guard loaded else {
                // Logged in all the same; the nick stays as it was.
                session.awaitsRoomLog = false
                sendLoggedIn(session, into: &out)
                releaseHeldMessages(of: session, now: now, into: &out)
                return out
            }
            claimLoginNick(request, account: account, session: session, into: &out)
        }
        return out
    }

    /// Another node changed this account: this node reads it again when next needed, at once
    /// when connections here are logged in to it (an `unregister` closes them).
    public func accountChanged(_ name: String) -> [ServerAction] {
        accounts.forget(name)
        let key = ChatValidation.nickKey(name)
        guard clients.values.contains(where: { $0.accountKey == key }) else { return [] }
        return [.loadAccounts(nextAccountsToken(.recheck(name)), names: [name])]
    }

    /// Changes may have been missed (the subscription was lost): every account is read again.
    public func accountChangesMissed() {
        accounts.forgetAll()
    }

    // MARK: Writes

    /// Writes through the store; the request is answered once it is stored.
    func writeAccount(_ write: AccountWrite, for pending: PendingAccounts, session: ClientSession, into out: inout [ServerAction]) {
        session.awaitsRoomLog = true
        out.append(.writeAccount(nextAccountsToken(pending), write))
    }

    /// The outcome of ``ServerAction/writeAccount(_:_:)``.
    public func accountWritten(_ token: UInt64, _ outcome: AccountWriteOutcome, _ write: AccountWrite, now: Int64) -> [ServerAction] {
        guard let pending = pendingAccounts.removeValue(forKey: token) else {
            return [.log(.warning, "unknown account write", ["token": String(token)])]
        }
        if outcome == .written { accounts.apply(write) }
        var out: [ServerAction] = []
        let client: ClientID
        let request: ChatMessage
        switch pending {
        case .register(let id, let message, _), .passwordChange(let id, let message), .certificate(let id, let message, _):
            client = id
            request = message
        case .prefetch, .background, .recheck, .nickCandidates:
            return out
        case .console(let answer):
            out.append(.consoleLine(outcome == .written ? answer : outcome == .exists ? "account \(write.account) exists"
                                        : "the account could not be stored"))
            return out
        }
        guard let session = clients[client] else { return out }
        session.awaitsRoomLog = false
        switch (outcome, pending) {
        case (.written, .register(_, _, let nick)):
            var created = now
            if case .create(let account, _) = write { created = account.created }
            registered(session, nick: nick, created: created, into: &out)
        case (.written, .passwordChange):
            out.append(.log(.info, "password changed", logFields(session, ["account": write.account])))
            sendChat(.accountNotice(nick: session.nick, account: write.account, text: "password-changed"), to: session, into: &out)
        case (.written, .certificate(_, _, let adding)):
            sendChat(.accountNotice(nick: session.nick, account: write.account, text: adding ? "certificate-added" : "certificate-removed"),
                     to: session, into: &out)
        case (.exists, _):
            sendError(.accountExists, "'\(write.account)' is a registered account", id: request.id, to: session, into: &out)
        default:
            sendError(.unavailable, "the account could not be stored; try again", id: request.id, to: session, into: &out)
        }
        releaseHeldMessages(of: session, now: now, into: &out)
        return out
    }

    private func nextAccountsToken(_ pending: PendingAccounts) -> UInt64 {
        nextSharedToken += 1
        pendingAccounts[nextSharedToken] = pending
        return nextSharedToken
    }
}

/// An account as the shared store has it.
public struct LoadedAccount: Sendable, Equatable {
    public var account: StoredAccount
    public var certificates: [String]

    public init(account: StoredAccount, certificates: [String]) {
        self.account = account
        self.certificates = certificates
    }
}

public enum AccountWriteOutcome: Sendable, Equatable {
    case written
    /// A create of a name that exists.
    case exists
    case failed(String)
}
