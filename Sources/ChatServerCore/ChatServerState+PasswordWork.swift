import ChatProtocol

/// Password work as actions and inputs (the core never blocks): a request that needs a hash or a
/// check becomes a ``ServerAction/password(_:)``; its outcome comes back through
/// ``passwordTaskFinished(_:_:now:)``, in any order, also for a client that has since gone. While
/// a connection waits for a verdict its chat-stream messages wait too and are handled in order
/// afterwards, so nothing that depends on the outcome overtakes it (docs/PROTOCOL.md section 7).
extension ChatServerState {
    /// The glue's result for a task; does nothing for a ticket it does not know.
    public func passwordTaskFinished(_ ticket: UInt64, _ outcome: PasswordOutcome, now: Int64) -> [ServerAction] {
        guard let task = passwordTasks.removeValue(forKey: ticket) else {
            return [.log(.warning, "unknown password task", ["ticket": String(ticket)])]
        }
        guard let session = clients[task.client], session.awaitedPasswordTask == ticket else {
            return [.log(.debug, "password task outlived its client", ["client": String(task.client)])]
        }
        session.awaitedPasswordTask = nil
        var out: [ServerAction] = []
        if case .failed(let why) = outcome { out.append(.log(.error, "password task failed", ["error": why])) }
        switch task.purpose {
        case .hello(let join, let account):
            if verdict(outcome, request: join, account: account, session: session, now: now, into: &out) {
                helloPasswordAccepted(join, account: account, session: session, now: now, into: &out)
            }
        case .login(let request, let account):
            if verdict(outcome, request: request, account: account, session: session, now: now, into: &out) {
                logIn(session, to: account, request: request, now: now, into: &out)
            }
        case .register(let request, let nick):
            guard case .hashed(let hash) = outcome else {
                sendError(.unavailable, "the password could not be hashed; try again", id: request.id, to: session, into: &out)
                break
            }
            completeRegistration(request, nick: nick, hash: hash, session: session, now: now, into: &out)
        case .changePassword(let request, let account):
            guard case .hashed(let hash) = outcome else {
                sendError(.unavailable, "the password could not be hashed; try again", id: request.id, to: session, into: &out)
                break
            }
            completePasswordChange(request, account: account, hash: hash, session: session, into: &out)
        }
        releaseHeldMessages(of: session, now: now, into: &out)
        return out
    }

    /// Password tasks handed out and not answered yet.
    public var pendingPasswordTasks: Int { passwordTasks.count }

    /// Accounts and addresses whose recent wrong passwords are counted (bounded by `loginFailureKeys` each).
    public var trackedLoginFailureKeys: Int { loginFailures.trackedKeys }

    /// Checks `password` against `account`'s hash, unless too many wrong ones came lately for the
    /// account or from the client's address (then `bad-login` at once, nothing hashed).
    func checkPassword(_ password: String, of account: StoredAccount, for purpose: PendingPasswordTask.Purpose, request: ChatMessage,
                       session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        let key = ChatValidation.nickKey(account.name)
        guard !loginFailures.isLocked(account: key, address: session.address, now: now) else {
            sendError(.badLogin, "too many wrong passwords lately; wait a minute", id: request.id, to: session, into: &out)
            return
        }
        guard let storedHash = account.passwordHash else {
            recordLoginFailure(account: key, address: session.address, now: now, into: &out)
            sendError(.badLogin, "wrong account name or password", id: request.id, to: session, into: &out)
            return
        }
        startPasswordTask(.verify(storedHash: storedHash), password: password, purpose: purpose, request: request,
                          session: session, into: &out)
    }

    /// Counts a wrong password here and, with a shared store, on every node: the limit holds for
    /// the account and the address whichever nodes the attempts come through.
    func recordLoginFailure(account: String?, address: String, now: Int64, into out: inout [ServerAction]) {
        loginFailures.recordFailure(account: account, address: address, now: now)
        if roomLog == .shared { out.append(.publishLoginFailure(account: account, address: address)) }
    }

    /// Another node counted a wrong password (``ServerAction/publishLoginFailure(account:address:)``).
    public func loginFailedElsewhere(account: String?, address: String, now: Int64) {
        // What came through the store is checked like anything from outside (the tracked keys are
        // bounded either way).
        let account = account.flatMap { ChatValidation.isValidNick($0) ? ChatValidation.nickKey($0) : nil }
        loginFailures.recordFailure(account: account, address: address.count <= 64 ? address : "", now: now)
    }

    /// Hands a task to the glue and makes the connection wait for it. Beyond the queue's bound
    /// nothing is queued: `rate-limited`, which a client answers by sending again later (no
    /// strike toward FLOODING: the server is busy, the client did nothing wrong).
    func startPasswordTask(_ work: PasswordTask.Work, password: String, purpose: PendingPasswordTask.Purpose, request: ChatMessage,
                           session: ClientSession, into out: inout [ServerAction]) {
        guard passwordTasks.count < configuration.passwordQueueLimit else {
            sendError(.rateLimited, "the server is busy checking passwords; try again in a moment", id: request.id, to: session,
                      into: &out)
            return
        }
        nextPasswordTicket += 1
        let ticket = nextPasswordTicket
        passwordTasks[ticket] = PendingPasswordTask(client: session.id, purpose: purpose)
        session.awaitedPasswordTask = ticket
        out.append(.password(PasswordTask(ticket: ticket, password: password, work: work)))
    }

    /// A chat-stream message that arrived while the connection waits for a verdict (or, with a
    /// shared room log, for its join or part to be done); false when it can be handled now.
    func holdWhileAwaiting(_ message: ChatMessage, from session: ClientSession, into out: inout [ServerAction]) -> Bool {
        guard session.isAwaiting else { return false }
        // A re-join like the one being answered (shared store) is answered with it: it needs
        // nothing the first does not read.
        if let catchUp = session.catchUp, catchUp.isRejoin, session.heldMessages.isEmpty, message.messageType == .join,
           ChatValidation.normalizeRoom(message.roomOrDefault) == catchUp.room, message.since == catchUp.since {
            catchUp.repeats += 1
            return true
        }
        guard session.heldMessages.count < configuration.heldMessageLimit else {
            let why = session.awaitedPasswordTask != nil ? "while your password is checked" : "while your last join or part is done"
            sendError(.rateLimited, "too many messages \(why); this one was dropped", id: message.id, to: session, into: &out)
            return true
        }
        session.heldMessages.append(message)
        return true
    }

    /// Handles what waited, in order, until one of them makes the connection wait again.
    func releaseHeldMessages(of session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        while !session.isAwaiting, !session.heldMessages.isEmpty, clients[session.id] === session {
            let message = session.heldMessages.removeFirst()
            handleChatMessage(message, from: session, now: now, into: &out)
        }
    }

    /// True for a right password; otherwise answers `bad-login` (and counts it) or, when the check
    /// failed, `unavailable`.
    private func verdict(_ outcome: PasswordOutcome, request: ChatMessage, account: StoredAccount, session: ClientSession, now: Int64,
                         into out: inout [ServerAction]) -> Bool {
        switch outcome {
        case .verified(true):
            return true
        case .verified(false), .hashed:
            recordLoginFailure(account: ChatValidation.nickKey(account.name), address: session.address, now: now, into: &out)
            sendError(.badLogin, "wrong account name or password", id: request.id, to: session, into: &out)
            out.append(.log(.info, "bad login", logFields(session, ["account": account.name])))
        case .failed:
            sendError(.unavailable, "the password could not be checked; try again", id: request.id, to: session, into: &out)
        }
        return false
    }

    /// Whether the certificate is bound to the account; a store that cannot say means no.
    func isCertificate(_ fingerprint: String?, boundTo account: String, into out: inout [ServerAction]) -> Bool {
        guard let fingerprint else { return false }
        do {
            return try accounts.certificates(ofAccount: account).contains(fingerprint)
        } catch {
            out.append(.log(.error, "account read failed", ["error": "\(error)"]))
            return false
        }
    }
}
