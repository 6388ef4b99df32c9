import ChatProtocol

/// With a shared store (`--cluster`): what must be unique across nodes. A hello takes the peer
/// id's lease (learning whether the device is connected through another node, which is then told
/// to close it with REPLACED) and the first free nick's lease in one step of the store (issue 26,
/// item 5); a rename takes the new nick's.
/// A `dm` to a nick of another node goes to that node's inbox. The connection's later messages
/// wait meanwhile, as for a password.
extension ChatServerState {
    /// Nick candidates asked for at once; a hello tries `helloNickRounds` such batches.
    static let nickCandidatesPerClaim = 8
    static let helloNickRounds = 3

    func beginClusterHello(_ join: ChatMessage, peer: String, account: String?, session: ClientSession, into out: inout [ServerAction]) {
        guard sharedStoreReady else {
            sendError(.unavailable, "this node is not ready yet; try again", id: join.id, to: session, into: &out)
            return
        }
        session.awaitsRoomLog = true
        let candidates = helloNickCandidates(join, account: account, round: 0, session: session, into: &out)
        // A candidate not read from the store yet might be someone's account: read first, then
        // choose again (issue 23, finding 5: `_10` and beyond were taken as free).
        if readAccounts(unreadAccounts(among: candidates), then: .hello(session.id, join: join, peer: peer, account: account),
                        session: session, into: &out) { return }
        let token = nextIdentityToken(.hello(session.id, join: join, peer: peer, account: account))
        out.append(.claimHello(token, peer: peer, client: session.id, account: account.map(ChatValidation.nickKey), candidates: candidates,
                               address: session.address))
    }

    /// The outcome of ``ServerAction/claimHello(_:peer:client:account:candidates:address:)``: the
    /// device's previous holder, and the nick now held.
    public func helloClaimed(_ token: UInt64, _ outcome: ClaimOutcome<HelloClaim>, now: Int64) -> [ServerAction] {
        guard case .hello(let client, let join, let peer, let account)? = pendingIdentities.removeValue(forKey: token) else {
            return [.log(.warning, "unknown hello claim", ["token": String(token)])]
        }
        guard let session = clients[client] else {
            // Gone meanwhile: what it took is not used.
            if case .answered(let claim) = outcome, claim.deviceTaken {
                return [.releaseIdentity(peer: peer, client: client, nick: claim.nick ?? "", andPeer: true)]
            }
            return []
        }
        var out: [ServerAction] = []
        switch outcome {
        case .failed(let why):
            storeUnavailable(for: join, session: session, why: why, now: now, into: &out)
        case .answered(let claim) where !claim.deviceTaken:
            // The device's session is logged in to an account this connection did not prove: it
            // keeps the lease, and this connection is a new device, with a peer id of the server's.
            beginClusterHello(join, peer: makePeerID(), account: account, session: session, into: &out)
        case .answered(let claim):
            if let previous = claim.previous, !previous.isThisNode {
                // The device is connected through another node: that node closes it (REPLACED),
                // and this connection kept its nick (the store tried it first).
                out.append(.sendToNode(nil, node: previous.node, .replace(client: previous.client, peer: peer)))
            }
            guard let nick = claim.nick else {
                claimHelloNick(join, peer: peer, account: account, round: 1, session: session, into: &out)
                return out
            }
            session.awaitsRoomLog = false
            finishHello(join, peer: peer, account: account, replacing: nil, nick: nick, peerRecorded: true, session: session, now: now,
                        into: &out)
            releaseHeldMessages(of: session, now: now, into: &out)
        }
        return out
    }

    /// A hello's nick candidates of `round` (each round asks for ``nickCandidatesPerClaim``): the
    /// wanted nick and its suffixed forms that no connection here holds and no account of another
    /// keeps, as far as this node knows.
    private func helloNickCandidates(_ join: ChatMessage, account: String?, round: Int, session: ClientSession,
                                     into out: inout [ServerAction]) -> [String] {
        ChatValidation.freeNickCandidates(
            for: account ?? join.sender, count: Self.nickCandidatesPerClaim, startingAt: 1 + round * Self.nickCandidatesPerClaim * 4
        ) { candidate in
            if activeSession(forNick: candidate) != nil { return true }
            return isReserved(candidate, toOtherThan: account.map(ChatValidation.nickKey), certificate: session.certificate, into: &out)
        }
    }

    /// A hello whose first round's candidates were all held: the next rounds, with its device's
    /// lease already taken.
    func claimHelloNick(_ join: ChatMessage, peer: String, account: String?, round: Int, session: ClientSession,
                        into out: inout [ServerAction]) {
        let candidates = helloNickCandidates(join, account: account, round: round, session: session, into: &out)
        if readAccounts(unreadAccounts(among: candidates),
                        then: .helloNick(session.id, join: join, peer: peer, account: account, round: round),
                        session: session, into: &out) { return }
        let token = nextIdentityToken(.helloNick(session.id, join: join, peer: peer, account: account, round: round))
        out.append(.claimNick(token, candidates: candidates, peer: peer))
    }

    /// The outcome of ``ServerAction/claimNick(_:candidates:peer:)``: the nick now held, or nil
    /// when every candidate is another device's.
    public func nickClaimed(_ token: UInt64, _ outcome: ClaimOutcome<String?>, now: Int64) -> [ServerAction] {
        guard let pending = pendingIdentities.removeValue(forKey: token) else {
            return [.log(.warning, "unknown nick claim", ["token": String(token)])]
        }
        var out: [ServerAction] = []
        switch pending {
        case .helloNick(let client, let join, let peer, let account, let round):
            guard let session = clients[client] else { return [] }
            switch outcome {
            case .failed(let why):
                storeUnavailable(for: join, session: session, why: why, now: now, into: &out)
            case .answered(nil) where round + 1 < Self.helloNickRounds:
                claimHelloNick(join, peer: peer, account: account, round: round + 1, session: session, into: &out)
            case .answered(nil):
                session.awaitsRoomLog = false
                sendError(.nickInUse, "no free nick like '\(ChatValidation.excerpt(join.sender))' right now; choose another",
                          id: join.id, to: session, into: &out)
                releaseHeldMessages(of: session, now: now, into: &out)
            case .answered(let nick?):
                session.awaitsRoomLog = false
                finishHello(join, peer: peer, account: account, replacing: nil, nick: nick, session: session, now: now, into: &out)
                releaseHeldMessages(of: session, now: now, into: &out)
            }
        case .rename(let client, let peer, let request, let candidates, let login):
            guard let session = clients[client] else {
                // Gone meanwhile: the lease it may have got is not used.
                if case .answered(let nick?) = outcome { out.append(.releaseIdentity(peer: peer, client: client, nick: nick, andPeer: false)) }
                return out
            }
            session.awaitsRoomLog = false
            switch outcome {
            case .failed:
                sendError(.unavailable, "the nick cannot be checked right now; try again", id: request.id, to: session, into: &out)
                if login { sendLoggedIn(session, into: &out) }
            case .answered(nil):
                if !login { sendError(.nickInUse, "nick '\(candidates.first ?? "")' is taken", id: request.id, to: session, into: &out) }
                if login { sendLoggedIn(session, into: &out) }
            case .answered(let newNick?):
                let old = session.nick
                // A login that keeps the connection's nick (`dave_2`, the account's `dave` being
                // another connection's) renames nothing, and the lease it holds stays its own.
                if newNick != old {
                    rename(session, to: newNick, login: login, now: now, into: &out)
                } else if login {
                    sendLoggedIn(session, into: &out)
                }
                if ChatValidation.nickKey(newNick) != ChatValidation.nickKey(old) {
                    out.append(.releaseIdentity(peer: session.peer, client: session.id, nick: old, andPeer: false))
                }
                recordPeer(of: session, into: &out)
            }
            releaseHeldMessages(of: session, now: now, into: &out)
        case .hello, .directMessage, .directMessageReceipt, .directMessageSent, .serverKick, .invite, .ban, .uploadRecipient,
             .fileNotice:
            out.append(.log(.warning, "nick claim answered for another step", ["token": String(token)]))
        }
        return out
    }

    /// With a shared store: the device's lease names the connection as it is now (its nick,
    /// account and address), for other nodes to find (a `ban` of it through another node).
    func recordPeer(of session: ClientSession, into out: inout [ServerAction]) {
        out.append(.recordPeer(peer: session.peer, client: session.id, nick: session.nick, account: session.accountKey,
                               address: session.address))
    }

    /// A rename with a shared store: the new nick's lease first (for a login, the first free of
    /// `candidates`).
    func beginClusterRename(_ request: ChatMessage, to candidates: [String], login: Bool = false, session: ClientSession,
                            into out: inout [ServerAction]) {
        session.awaitsRoomLog = true
        let token = nextIdentityToken(.rename(session.id, peer: session.peer, request: request, candidates: candidates, login: login))
        out.append(.claimNick(token, candidates: candidates, peer: session.peer))
    }

    /// The client is told `unavailable` and stays waiting for its hello.
    func storeUnavailable(for join: ChatMessage, session: ClientSession, why: String, now: Int64, into out: inout [ServerAction]) {
        session.awaitsRoomLog = false
        out.append(.log(.warning, "shared store unavailable", ["error": why]))
        sendError(.unavailable, "the server cannot check names right now; try again", id: join.id, to: session, into: &out)
        releaseHeldMessages(of: session, now: now, into: &out)
    }

    func nextIdentityToken(_ pending: PendingIdentity) -> UInt64 {
        nextSharedToken += 1
        pendingIdentities[nextSharedToken] = pending
        return nextSharedToken
    }
}
