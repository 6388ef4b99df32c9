import ChatProtocol

/// `register`, `login`, `password` and `certificate` (PROTOCOL.md section 7). Each is answered
/// with `{"type":"account","sender":NICK,"account":NAME,"text":WHAT}` or an `error`.
extension ChatServerState {
    func handleRegister(_ request: ChatMessage, from session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        if let account = session.account {
            sendError(.accountExists, "this connection is logged in as '\(account)' already", id: request.id, to: session, into: &out)
            return
        }
        switch lookUpAccount(session.nick, for: request, from: session, into: &out) {
        case .unreadable: return
        case .found:
            sendError(.accountExists, "'\(session.nick)' is a registered account", id: request.id, to: session, into: &out)
            return
        case .none: break
        }
        let key = ChatValidation.nickKey(session.nick)
        if policies.operatorKeys.contains(key) && !isOperatorCertificate(session.certificate, of: key) {
            // Held since before it was named an operator (a reload): still not the guest's to register.
            sendError(.accountExists, "'\(session.nick)' is reserved for a server operator; it is made on the server's console",
                      id: request.id, to: session, into: &out)
            return
        }
        guard let password = request.password else {
            guard session.certificate != nil else {
                sendError(.weakPassword, "register needs a password of 8 to 256 bytes (or a client certificate)", id: request.id,
                          to: session, into: &out)
                return
            }
            registerWithCertificate(request, session: session, now: now, into: &out)
            return
        }
        guard ChatValidation.isAcceptablePassword(password) else {
            sendError(.weakPassword, "a password is 8 to 256 bytes", id: request.id, to: session, into: &out)
            return
        }
        guard let ticket = takePasswordTask(.hash, password: password, purpose: .register(request: request, nick: session.nick),
                                            request: request, session: session, lane: .change,
                                            key: passwordQueueKey(of: session, account: ChatValidation.nickKey(session.nick)), now: now,
                                            into: &out) else { return }
        countRegistration(ticket: ticket, request: request, session: session, now: now, into: &out)
    }

    /// Counts a registration against its address before its password is hashed (PROTOCOL.md
    /// section 7: at most `registrationsPerAddress` an hour from one address; an exempt one is not
    /// counted): on a server without a store here, else in the store, whose answer comes through
    /// ``loginAttemptReserved(_:_:now:)``. The connection waits for the count as for the hash.
    private func countRegistration(ticket: UInt64, request: ChatMessage, session: ClientSession, now: Int64,
                                   into out: inout [ServerAction]) {
        guard !session.address.isEmpty else { return enqueuePasswordTask(ticket, into: &out) }
        countAttempt(LoginAttempt(ticket: ticket, account: nil, address: session.address, kind: .registration), into: &out)
    }

    /// A registration with the connection's certificate and no password: counted as one with a
    /// password (``countRegistration(ticket:request:session:now:into:)``), then stored.
    private func registerWithCertificate(_ request: ChatMessage, session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        guard !session.address.isEmpty else {
            return completeRegistration(request, nick: session.nick, hash: nil, session: session, now: now, into: &out)
        }
        lastCertificateRegistration += 1
        let attempt = LoginAttempt(ticket: lastCertificateRegistration, account: nil, address: session.address, kind: .registration)
        certificateRegistrations[attempt.ticket] = (session.id, request, session.nick)
        out.append(reserve(attempt))
    }

    /// The store's count of a registration with a certificate (``registerWithCertificate(_:session:now:into:)``).
    func certificateRegistrationCounted(_ attempt: LoginAttempt, _ answer: LoginAttemptReservation,
                                        waiting: (client: ClientID, request: ChatMessage, nick: String), now: Int64) -> [ServerAction] {
        guard let session = clients[waiting.client] else { return answer == .reserved ? [.releaseLoginAttempt(attempt)] : [] }
        var out: [ServerAction] = []
        switch answer {
        case .reserved: completeRegistration(waiting.request, nick: waiting.nick, hash: nil, session: session, now: now, into: &out)
        case .locked: refuseRegistration(waiting.request, session: session, into: &out)
        case .unavailable:
            sendError(.unavailable, "the registration could not be counted now; try again", id: waiting.request.id, to: session, into: &out)
        }
        return out
    }

    /// A registration from an address that has registered its accounts for the window.
    func refuseRegistration(_ request: ChatMessage, session: ClientSession, into out: inout [ServerAction]) {
        sendError(.quotaExceeded, "too many accounts registered from this address lately; try again later", id: request.id,
                  to: session, into: &out)
        out.append(.log(.info, "registration refused", logFields(session, ["limit": String(configuration.registrationsPerAddress)])))
    }

    /// Stores the account (its password hash, the connection's certificate) and logs the
    /// connection in; the nick is the account's name.
    func completeRegistration(_ request: ChatMessage, nick: String, hash: String?, session: ClientSession, now: Int64,
                              into out: inout [ServerAction]) {
        // Messages wait while the hash runs, so the nick cannot have changed; a takeover would.
        guard session.nick == nick, session.account == nil else {
            sendError(.accountExists, "the nick changed while registering; register again", id: request.id, to: session, into: &out)
            return
        }
        let account = StoredAccount(name: nick, passwordHash: hash, created: now)
        writeAccount(.create(account, certificate: session.certificate), for: .register(session.id, request, nick: nick),
                     session: session, into: &out)
    }

    /// The account is stored: the connection is logged in to it.
    func registered(_ session: ClientSession, nick: String, created: Int64, into out: inout [ServerAction]) {
        session.logIn(nick, created: created)
        out.append(.publishMember(memberRecord(of: session), rooms: session.rooms.array))
        // The device's lease names its account now: only a connection proving it takes it over.
        recordPeer(of: session, into: &out)
        out.append(.log(.info, "registered", logFields(session, ["certificate": session.certificate == nil ? "no" : "yes"])))
        sendChat(.accountNotice(nick: session.nick, account: nick, text: "registered"), to: session, into: &out)
    }

    func handleLogin(_ request: ChatMessage, from session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        if let account = session.account {
            sendError(.accountExists, "this connection is logged in as '\(account)' already; reconnect to change accounts",
                      id: request.id, to: session, into: &out)
            return
        }
        let lookup = lookUpAccount(request.sender, for: request, from: session, into: &out)
        if case .unreadable = lookup { return }
        if let account = lookup.account, isCertificate(session.certificate, boundTo: account.name, into: &out) {
            logIn(session, to: account, request: request, now: now, into: &out)
            return
        }
        guard let password = request.password else {
            // The same answer whether the name is an account or not.
            sendError(.badLogin, "login needs the password (or a certificate bound to the account)", id: request.id, to: session,
                      into: &out)
            return
        }
        // A name that is no account is checked against the decoy: the same work, count and answer.
        checkPassword(password, of: lookup.account, named: request.sender, for: .login(request: request, account: lookup.account),
                      request: request, session: session, now: now, into: &out)
    }

    /// Logs a connection in after its hello: it takes the account's nick (renamed in each of its
    /// rooms; `NAME_2`... when another connection of the account holds it), unless it is banned
    /// from the server, which closes it.
    func logIn(_ session: ClientSession, to account: StoredAccount, request: ChatMessage, now: Int64, into out: inout [ServerAction]) {
        if serverBan(account: account.name, created: account.created, peer: session.peer, address: session.address) != nil {
            sendError(.banned, "account '\(account.name)' is banned from this server", id: request.id, to: session, into: &out)
            close(session, with: .banned, reason: "banned from this server", now: now, into: &out)
            return
        }
        session.logIn(account.name, created: account.created)
        out.append(.publishMember(memberRecord(of: session), rooms: session.rooms.array))
        recordPeer(of: session, into: &out)
        if ChatValidation.nickKey(session.nick) != ChatValidation.nickKey(account.name) {
            // The account's nick (or NAME_2...) is taken like any nick: through the shared store;
            // `account logged-in` follows the renames (``loginRenamed(_:into:)``).
            out.append(.log(.info, "logged in", logFields(session, ["account": account.name])))
            claimLoginNick(request, account: account.name, session: session, into: &out)
            return
        } else {
            let nick = ChatValidation.nickKey(session.nick) == ChatValidation.nickKey(account.name)
                ? session.nick
                : freeNick(for: account.name, account: account.name, certificate: session.certificate, renaming: session, into: &out)
            if nick != session.nick { rename(session, to: nick, now: now, into: &out) }
        }
        out.append(.log(.info, "logged in", logFields(session, ["account": account.name])))
        sendChat(.accountNotice(nick: session.nick, account: account.name, text: "logged-in"), to: session, into: &out)
    }

    /// The nick of a login on a node of several: the first of the account's nick and `NAME_2`…
    /// that no other device holds and that is no other account, once every candidate has been
    /// read from the shared store (``unreadAccounts(among:)``).
    func claimLoginNick(_ request: ChatMessage, account: String, session: ClientSession, into out: inout [ServerAction]) {
        let candidates = ChatValidation.freeNickCandidates(for: account, count: Self.nickCandidatesPerClaim) { candidate in
            if let holder = activeSession(forNick: candidate), holder !== session { return true }
            return isReserved(candidate, toOtherThan: ChatValidation.nickKey(account), certificate: session.certificate, into: &out)
        }
        if readAccounts(unreadAccounts(among: candidates), then: .loginNick(session.id, request: request, account: account),
                        session: session, into: &out) { return }
        beginClusterRename(request, to: candidates, login: true, session: session, into: &out)
    }

    func handlePasswordChange(_ request: ChatMessage, from session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        guard let account = session.account else {
            sendError(.notLoggedIn, "log in (or register) first", id: request.id, to: session, into: &out)
            return
        }
        guard let password = request.password, ChatValidation.isAcceptablePassword(password) else {
            sendError(.weakPassword, "a password is 8 to 256 bytes", id: request.id, to: session, into: &out)
            return
        }
        // The connection proves the account again: by its bound certificate, or by the current
        // password in `old` (checked and counted like any password; docs/PROTOCOL.md sections 7-8, item 10).
        if isCertificate(session.certificate, boundTo: account, into: &out) {
            startPasswordTask(.hash, password: password, purpose: .changePassword(request: request, account: account), request: request,
                              account: account, session: session, now: now, into: &out)
            return
        }
        guard let old = request.old else {
            sendError(.badLogin, "changing the password needs the current one in 'old' (or a certificate bound to the account)",
                      id: request.id, to: session, into: &out)
            return
        }
        let lookup = lookUpAccount(account, for: request, from: session, into: &out)
        if case .unreadable = lookup { return }
        checkPassword(old, of: lookup.account, named: account, for: .verifyOldPassword(request: request, account: lookup.account),
                      lane: .change, request: request, session: session, now: now, into: &out)
    }

    func completePasswordChange(_ request: ChatMessage, account: String, hash: String, session: ClientSession,
                                into out: inout [ServerAction]) {
        writeAccount(.setPasswordHash(account: account, hash: hash), for: .passwordChange(session.id, request), session: session,
                     into: &out)
    }

    /// `certificate` `add` or `remove`: binds or unbinds the connection's certificate. An account
    /// keeps at least one credential: removing its only certificate when it has no password is
    /// `weak-password`.
    func handleCertificate(_ request: ChatMessage, from session: ClientSession, into out: inout [ServerAction]) {
        guard let account = session.account else {
            sendError(.notLoggedIn, "log in (or register) first", id: request.id, to: session, into: &out)
            return
        }
        guard request.text == "add" || request.text == "remove" else {
            sendError(.badField, "certificate takes text 'add' or 'remove'", id: request.id, to: session, into: &out)
            return
        }
        guard let fingerprint = session.certificate else {
            sendError(.badField, "this connection presented no client certificate", id: request.id, to: session, into: &out)
            return
        }
        let adding = request.text == "add"
        do {
            let bound = try accounts.certificates(ofAccount: account)
            if adding, !bound.contains(fingerprint) {
                guard bound.count < configuration.maxCertificatesPerAccount else {
                    sendError(.quotaExceeded, "an account has at most \(configuration.maxCertificatesPerAccount) certificates; remove one",
                              id: request.id, to: session, into: &out)
                    return
                }
                return writeAccount(.bind(account: account, certificate: fingerprint), for: .certificate(session.id, request, adding: true),
                                    session: session, into: &out)
            } else if !adding, bound.contains(fingerprint) {
                if bound.count == 1, try accounts.account(named: account)?.passwordHash == nil {
                    sendError(.weakPassword, "this is the account's only credential: set a password first", id: request.id, to: session,
                              into: &out)
                    return
                }
                return writeAccount(.unbind(account: account, certificate: fingerprint),
                                    for: .certificate(session.id, request, adding: false), session: session, into: &out)
            }
        } catch {
            out.append(.log(.error, "account write failed", ["error": "\(error)"]))
            sendError(.unavailable, "the certificate could not be stored; try again", id: request.id, to: session, into: &out)
            return
        }
        sendChat(.accountNotice(nick: session.nick, account: account, text: adding ? "certificate-added" : "certificate-removed"),
                 to: session, into: &out)
    }
}
