import ChatProtocol

/// Password work as actions and inputs (the core never blocks): a request that needs a hash or a
/// check becomes a ``ServerAction/password(_:)``; its outcome comes back through
/// ``passwordTaskFinished(_:_:now:)``, in any order, also for a client that has since gone. While
/// a connection waits for a verdict its chat-stream messages wait too and are handled in order
/// afterwards, so nothing that depends on the outcome overtakes it (docs/PROTOCOL.md section 7).
extension ChatServerState {
    /// The glue's result for a task; does nothing for a ticket it does not know.
    public func passwordTaskFinished(_ ticket: UInt64, _ outcome: PasswordOutcome, now: Int64) -> [ServerAction] {
        guard let task = passwordWork.finish(ticket) else {
            return [.log(.warning, "unknown password task", ["ticket": String(ticket)])]
        }
        var out: [ServerAction] = []
        // The worker is free: the next task's turn, before this one's verdict is acted on (what
        // that lets its client send next queues behind the others).
        dispatchPasswordTasks(into: &out)
        // A counted attempt stays counted only when its password was wrong; also when its client
        // has gone meanwhile (what the attempt was worth, it cost).
        if let attempt = task.attempt, task.isReserved, outcome == .verified(true) || outcome.isFailure {
            releaseAttempt(attempt, into: &out)
        }
        guard let session = clients[task.client], session.awaitedPasswordTask == ticket else {
            out.append(.log(.debug, "password task outlived its client", ["client": String(task.client)]))
            return out
        }
        session.awaitedPasswordTask = nil
        if case .failed(let why) = outcome { out.append(.log(.error, "password task failed", ["error": why])) }
        switch task.purpose {
        case .hello(let join, let account):
            if verdict(outcome, request: join, account: account, session: session, now: now, into: &out) {
                helloPasswordAccepted(join, account: account, session: session, now: now, into: &out)
            }
        case .login(let request, let account):
            if verdict(outcome, request: request, account: account, session: session, now: now, into: &out), let account {
                logIn(session, to: account, request: request, now: now, into: &out)
            }
        case .register(let request, let nick):
            guard case .hashed(let hash) = outcome else {
                sendError(.unavailable, "the password could not be hashed; try again", id: request.id, to: session, into: &out)
                break
            }
            completeRegistration(request, nick: nick, hash: hash, session: session, now: now, into: &out)
        case .verifyOldPassword(let request, let account):
            if verdict(outcome, request: request, account: account, session: session, now: now, into: &out), let account,
               let password = request.password {
                startPasswordTask(.hash, password: password, purpose: .changePassword(request: request, account: account.name),
                                  request: request, account: account.name, session: session, now: now, into: &out)
            }
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

    /// The shared store's answer to ``ServerAction/reserveLoginAttempt(_:limit:windowMilliseconds:)``.
    public func loginAttemptReserved(_ attempt: LoginAttempt, _ answer: LoginAttemptReservation, now: Int64) -> [ServerAction] {
        if let waiting = certificateRegistrations.removeValue(forKey: attempt.ticket) {
            return certificateRegistrationCounted(attempt, answer, waiting: waiting, now: now)
        }
        guard let task = passwordWork[attempt.ticket], !task.isRunning, !task.isReserved, task.attempt == attempt else {
            // Its client went meanwhile (the task with it): a count taken for nothing is taken back.
            return answer == .reserved ? [.releaseLoginAttempt(attempt)] : []
        }
        var out: [ServerAction] = []
        guard answer == .reserved else {
            _ = passwordWork.drop(attempt.ticket)
            guard let session = clients[task.client], session.awaitedPasswordTask == attempt.ticket else { return out }
            session.awaitedPasswordTask = nil
            if answer == .locked, attempt.kind == .registration {
                refuseRegistration(task.request, session: session, into: &out)
            } else if answer == .locked {
                refuseLockedAttempt(task.request, session: session, into: &out)
            } else {
                sendError(.unavailable, "the password could not be checked now; try again", id: task.request.id, to: session, into: &out)
            }
            releaseHeldMessages(of: session, now: now, into: &out)
            return out
        }
        passwordWork.setAttempt(attempt, of: attempt.ticket, reserved: true)
        enqueuePasswordTask(attempt.ticket, into: &out)
        return out
    }

    /// Password tasks taken on and not finished: counted, waiting or with the glue, those of
    /// clients since gone included while the glue has them.
    public var pendingPasswordTasks: Int { passwordWork.count }

    /// Checks `password` for the account `name` (a hello with a password, `login`): the attempt is
    /// counted first, for the account and the client's address (on a node of several, in the
    /// shared store), and only then hashed; it stops counting only when the password is right
    /// (PROTOCOL.md section 7). While either has had its wrong passwords for the window the
    /// answer is `bad-login` at once, nothing hashed. A name that is no account (`account` nil) or
    /// an account without a password is checked against the decoy: the same work, the same
    /// count, the same answer as a wrong password.
    func checkPassword(_ password: String, of account: StoredAccount?, named name: String, for purpose: PendingPasswordTask.Purpose,
                       lane: PasswordQueue.Lane = .login, request: ChatMessage, session: ClientSession, now: Int64,
                       into out: inout [ServerAction]) {
        let key = ChatValidation.isValidAccountName(name) ? ChatValidation.nickKey(name) : nil
        let work = account?.passwordHash.map { PasswordTask.Work.verify(storedHash: $0) } ?? .decoy
        guard let ticket = takePasswordTask(work, password: password, purpose: purpose, request: request, session: session,
                                            lane: lane, key: passwordQueueKey(of: session, account: key ?? ""), now: now,
                                            into: &out) else { return }
        countAttempt(LoginAttempt(ticket: ticket, account: key, address: session.address), into: &out)
    }

    /// Counts the attempt of the password task of its ticket in the store before the hash runs;
    /// its answer comes through ``loginAttemptReserved(_:_:now:)``.
    func countAttempt(_ attempt: LoginAttempt, into out: inout [ServerAction]) {
        passwordWork.setAttempt(attempt, of: attempt.ticket, reserved: false)
        out.append(reserve(attempt))
    }

    /// The store's count of `attempt`, by the limit of its kind.
    func reserve(_ attempt: LoginAttempt) -> ServerAction {
        switch attempt.kind {
        case .password:
            .reserveLoginAttempt(attempt, limit: configuration.loginFailureLimit, windowMilliseconds: configuration.loginFailureWindowMilliseconds)
        case .registration:
            .reserveLoginAttempt(attempt, limit: configuration.registrationsPerAddress,
                                 windowMilliseconds: configuration.registrationWindowMilliseconds)
        }
    }

    /// A password attempt while the account or the address has had its wrong passwords lately.
    private func refuseLockedAttempt(_ request: ChatMessage, session: ClientSession, into out: inout [ServerAction]) {
        sendError(.badLogin, "too many wrong passwords lately; wait a minute", id: request.id, to: session, into: &out)
    }

    /// Takes back a counted attempt in the store.
    func releaseAttempt(_ attempt: LoginAttempt, into out: inout [ServerAction]) {
        out.append(.releaseLoginAttempt(attempt))
    }

    /// Queues a hash for a registration or a password change and makes the connection wait for it.
    func startPasswordTask(_ work: PasswordTask.Work, password: String, purpose: PendingPasswordTask.Purpose, request: ChatMessage,
                           account: String, session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        guard let ticket = takePasswordTask(work, password: password, purpose: purpose, request: request, session: session,
                                            lane: .change, key: passwordQueueKey(of: session, account: ChatValidation.nickKey(account)),
                                            now: now, into: &out) else { return }
        enqueuePasswordTask(ticket, into: &out)
    }

    /// Whether `certificate` is the one configured for the operator name keyed `key`.
    func isOperatorCertificate(_ certificate: String?, of key: String) -> Bool {
        guard let certificate else { return false }
        return configuration.operatorCertificates[key] == certificate
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
            let why = session.awaitedPasswordTask != nil ? "while your password is checked"
                : session.awaitsReceipt ? "while your last message is checked" : "while your last join or part is done"
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

    /// True for a right password; otherwise answers `bad-login` (the attempt stays counted) or,
    /// when the check failed, `unavailable`. Never true without an account (the decoy).
    private func verdict(_ outcome: PasswordOutcome, request: ChatMessage, account: StoredAccount?, session: ClientSession,
                         now: Int64, into out: inout [ServerAction]) -> Bool {
        switch outcome {
        case .verified(true) where account != nil:
            return true
        case .verified, .hashed:
            sendError(.badLogin, "wrong account name or password", id: request.id, to: session, into: &out)
            out.append(.log(.info, "bad login", logFields(session, account.map { ["account": $0.name] } ?? [:])))
        case .failed:
            sendError(.unavailable, "the password could not be checked; try again", id: request.id, to: session, into: &out)
        }
        return false
    }

    /// Whether the certificate is bound to the account (in the store, or by `--operator
    /// NAME=sha256:...`); a store that cannot say means no.
    func isCertificate(_ fingerprint: String?, boundTo account: String, into out: inout [ServerAction]) -> Bool {
        guard let fingerprint else { return false }
        if isOperatorCertificate(fingerprint, of: ChatValidation.nickKey(account)) { return true }
        do {
            return try accounts.certificates(ofAccount: account).contains(fingerprint)
        } catch {
            out.append(.log(.error, "account read failed", ["error": "\(error)"]))
            return false
        }
    }
}
