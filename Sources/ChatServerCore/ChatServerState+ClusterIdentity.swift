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
            case .answered(nil):
                if !login { sendError(.nickInUse, "nick '\(candidates.first ?? "")' is taken", id: request.id, to: session, into: &out) }
            case .answered(let newNick?):
                let old = session.nick
                // A login that keeps the connection's nick (`dave_2`, the account's `dave` being
                // another connection's) renames nothing, and the lease it holds stays its own.
                if newNick != old { rename(session, to: newNick, now: now, into: &out) }
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
        guard roomLog == .shared else { return }
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

    // MARK: Direct messages to other nodes

    /// A `dm` with an id: its receipt first, which the first send may have left through another
    /// node (the client moved after its ack was lost).
    func beginDirectReceiptLookup(_ request: ChatMessage, id: String, session: ClientSession, into out: inout [ServerAction]) {
        let token = nextIdentityToken(.directMessageReceipt(session.id, request: request))
        out.append(.lookUpDirectReceipt(token, peer: session.peer, id: id))
    }

    /// A `dm` to a nick no connection of this node holds: where it is.
    func beginRemoteDirectMessage(_ request: ChatMessage, text: String, session: ClientSession, into out: inout [ServerAction]) {
        let token = nextIdentityToken(.directMessage(session.id, request: request, text: text))
        out.append(.lookUpNick(token, nick: request.to ?? ""))
    }

    /// The answer to ``ServerAction/lookUpNick(_:nick:)``: the node holding the nick, if any.
    public func nickLookedUp(_ token: UInt64, _ outcome: ClaimOutcome<NickHolder?>, now: Int64) -> [ServerAction] {
        let pending = pendingIdentities.removeValue(forKey: token)
        if case .serverKick(let nick, let reason, let by, let requester)? = pending {
            return remoteKickLookedUp(nick: nick, reason: reason, by: by, requester: requester, outcome, now: now)
        }
        if case .invite(let client, let request)? = pending {
            return remoteInviteeLookedUp(request, from: client, outcome, now: now)
        }
        if case .uploadRecipient(let key, let request)? = pending { return uploadRecipientLookedUp(request, on: key, outcome, now: now) }
        if case .fileNotice(let nick, let device, let payload)? = pending {
            return fileNoticeRecipientLookedUp(nick: nick, device: device, payload: payload, outcome)
        }
        guard case .directMessage(let client, let request, let text)? = pending else {
            return [.log(.warning, "unknown nick lookup", ["token": String(token)])]
        }
        guard let session = clients[client] else { return [] }
        var out: [ServerAction] = []
        let recipient = request.to ?? ""
        switch outcome {
        case .failed:
            // Nothing was stored: the recipient's node was not known yet.
            sendError(.unavailable, "the message could not be sent; send it again", id: request.id, stored: false, to: session, into: &out)
        case .answered(let holder?) where !holder.isThisNode:
            let delivered = ChatMessage(type: MessageType.dm.rawValue, text: text, sender: session.nick, id: request.id, ts: now,
                                        to: recipient, account: session.account)
            let sent = nextIdentityToken(.directMessageSent(session.id, id: request.id, ts: now))
            out.append(.sendToNode(sent, node: holder.node, .dm(to: recipient, payload: delivered.encodedDatagram(),
                                                                 dedupe: request.id.map { "\(session.peer):\($0)" })))
        case .answered:
            sendError(.noSuchUser, "no user '\(ChatValidation.excerpt(recipient))' is connected", id: request.id, to: session, into: &out)
        }
        return out
    }

    /// Whether a ``ServerAction/sendToNode(_:node:_:)`` with a token was stored in the inbox.
    public func nodeMessageSent(_ token: UInt64, _ outcome: ClaimOutcome<Bool>, now: Int64) -> [ServerAction] {
        guard case .directMessageSent(let client, let id, let ts)? = pendingIdentities.removeValue(forKey: token) else {
            return [.log(.warning, "unknown node message", ["token": String(token)])]
        }
        guard let session = clients[client] else { return [] }
        var out: [ServerAction] = []
        guard case .answered(true) = outcome else {
            sendError(.unavailable, "the message could not be sent; send it again", id: id, to: session, into: &out)
            return out
        }
        if let id {
            _ = persist([], receipts: [MessageReceipt(peer: session.peer, id: id, ts: ts)], into: &out)
            out.append(.storeDirectReceipt(peer: session.peer, id: id, ts: ts))
        }
        sendChat(.ack(id: id, ts: ts), to: session, into: &out)
        return out
    }

    /// The answer to ``ServerAction/lookUpDirectReceipt(_:peer:id:)``: the stamp of the first send
    /// of this id (acknowledged again, delivered nowhere), or nil (delivered now).
    public func directReceiptLookedUp(_ token: UInt64, _ outcome: ClaimOutcome<Int64?>, now: Int64) -> [ServerAction] {
        guard case .directMessageReceipt(let client, let request)? = pendingIdentities.removeValue(forKey: token) else {
            return [.log(.warning, "unknown receipt lookup", ["token": String(token)])]
        }
        guard let session = clients[client] else { return [] }
        var out: [ServerAction] = []
        switch outcome {
        case .failed:
            // Nothing was stored: the receipt was being looked up.
            sendError(.unavailable, "the message could not be sent; send it again", id: request.id, stored: false, to: session, into: &out)
        case .answered(let ts?):
            sendChat(.ack(id: request.id, ts: ts), to: session, into: &out)
        case .answered(nil):
            deliverDirectMessage(request, to: request.to ?? "", from: session, now: now, into: &out)
        }
        return out
    }

    /// A message from this node's inbox.
    public func nodeMessageDelivered(_ message: NodeMessage, now: Int64) -> [ServerAction] {
        var out: [ServerAction] = []
        switch message {
        case .dm(let to, let payload, _):
            guard let recipient = activeSession(forNick: to), var delivered = try? ChatMessage.decode(payload),
                  delivered.type == MessageType.dm.rawValue else {
                return [.log(.info, "dm for a user no longer here", [:])]
            }
            delivered.to = recipient.nick
            sendChat(delivered, to: recipient, into: &out)
        case .invite(let nick, let device, let payload):
            guard let invited = activeSession(forNick: nick), peerDigest(invited.peer) == device,
                  let notice = try? ChatMessage.decode(payload), notice.type == MessageType.invite.rawValue else {
                return [.log(.info, "invite for a user no longer here", [:])]
            }
            sendChat(notice, to: invited, into: &out)
        case .fileNotice(let nick, let device, let payload):
            guard let recipient = activeSession(forNick: nick), peerDigest(recipient.peer) == device,
                  var notice = try? ChatMessage.decode(payload), notice.type == MessageType.file.rawValue else {
                return [.log(.info, "file notice for a user no longer here", [:])]
            }
            notice.to = recipient.nick
            sendChat(notice, to: recipient, into: &out)
        case .replace(let client, let peer):
            guard let session = clients[client], session.phase == .active, session.peer == peer.uppercased() else { return [] }
            replacedElsewhere(session, now: now, into: &out)
        case .kick(let nick, let reason, let by):
            guard let target = activeSession(forNick: nick) else { return [.log(.info, "kick for a user no longer here", [:])] }
            sendChat(ChatMessage(type: MessageType.kicked.rawValue, text: reason, sender: by, ts: now, to: target.nick), to: target,
                     into: &out)
            close(target, with: .kicked, reason: reason.isEmpty ? "kicked by \(by)" : reason, now: now, into: &out)
        }
        return out
    }

    /// A server kick of a nick no connection of this node holds: its node is asked to.
    func beginRemoteKick(nick: String, reason: String, by: String, requester: ClientID?, into out: inout [ServerAction]) {
        let token = nextIdentityToken(.serverKick(nick: nick, reason: reason, by: by, requester: requester))
        out.append(.lookUpNick(token, nick: nick))
    }

    private func remoteKickLookedUp(nick: String, reason: String, by: String, requester: ClientID?, _ outcome: ClaimOutcome<NickHolder?>,
                                    now: Int64) -> [ServerAction] {
        var out: [ServerAction] = []
        let asker = requester.flatMap { clients[$0] }
        guard case .answered(let holder?) = outcome, !holder.isThisNode else {
            if let asker { sendError(.noSuchUser, "no user '\(ChatValidation.excerpt(nick))' is connected", to: asker, into: &out) }
            out.append(.log(.warning, "kick: no such user", ["nick": nick]))
            return out
        }
        out.append(.sendToNode(nil, node: holder.node, .kick(nick: nick, reason: reason, by: by)))
        if let asker {
            sendChat(ChatMessage(type: MessageType.kicked.rawValue, text: reason, sender: asker.nick, ts: now, to: nick), to: asker, into: &out)
        }
        out.append(.log(.info, "kick sent to another node", ["node": holder.node]))
        return out
    }

    /// An `invite` of a nick that is neither here nor in a room here: a guest of another node is
    /// found by its nick's lease, invited by device and told through its node's inbox.
    func beginRemoteInvite(_ request: ChatMessage, from session: ClientSession, into out: inout [ServerAction]) {
        let token = nextIdentityToken(.invite(session.id, request: request))
        out.append(.lookUpNick(token, nick: request.to ?? ""))
    }

    private func remoteInviteeLookedUp(_ request: ChatMessage, from client: ClientID, _ outcome: ClaimOutcome<NickHolder?>,
                                       now: Int64) -> [ServerAction] {
        guard let session = clients[client], session.phase == .active else { return [] }
        var out: [ServerAction] = []
        let nick = request.to ?? ""
        switch outcome {
        case .failed:
            sendError(.unavailable, "the invite could not be checked; try again", id: request.id, room: request.room, to: session,
                      into: &out)
        case .answered(let holder?) where !holder.isThisNode && holder.device != nil:
            guard let (room, settings) = moderatedRoom(request, from: session, minimum: .roomOperator, into: &out) else { return out }
            let target = ModerationTarget(label: nick, accountName: nil, session: nil, device: holder.device)
            invite(target, to: room, settings: settings, request: request, from: session, now: now, into: &out)
            if let device = holder.device {
                let notice = ChatMessage(.invite, sender: session.nick, room: room, ts: now)
                out.append(.sendToNode(nil, node: holder.node, .invite(nick: nick, device: device, payload: notice.encodedDatagram())))
            }
        case .answered:
            sendError(.noSuchUser, "no user or account '\(ChatValidation.excerpt(nick))'", id: request.id, to: session, into: &out)
        }
        return out
    }

    /// The device connected through another node: this connection closes with REPLACED, quietly
    /// (for everyone else the user never went away). The rooms it does not join again there
    /// within `takeoverGraceMilliseconds` get its `left` then.
    private func replacedElsewhere(_ session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        out.append(.close(session.id, .replaced, reason: "replaced by a newer connection"))
        out.append(.log(.info, "close", logFields(session, ["code": CloseCode.replaced.name, "by": "another node"])))
        clients[session.id] = nil
        unregister(session)
        for room in session.rooms {
            rooms[room]?.members[session.id] = nil
            rooms[room]?.catchingUp[session.id] = nil
            settleRoom(room, into: &out)
        }
        if !session.rooms.isEmpty {
            replacedLeftovers.append(ReplacedLeftover(deadline: now + Self.takeoverGraceMilliseconds, peer: session.peer,
                                                      nick: session.nick, rooms: session.rooms.array))
        }
    }

    /// How long rooms of a device that moved to another node wait for it to join them there.
    static let takeoverGraceMilliseconds: Int64 = 10_000

    /// Time passes (the glue calls this every second with a shared store): rooms left behind by
    /// devices that moved get their `left`.
    public func tick(now: Int64) -> [ServerAction] {
        var out: [ServerAction] = []
        leaveRoomsOfReplacedDevices(now: now, into: &out)
        refreshReceivingUploads(now: now, into: &out)
        notStoredWarnings.flush(now: now, into: &out)
        return out
    }

    /// An upload still arriving keeps its interrupted-upload record young in the store: another
    /// node's expiry (``ClusterLink/expirePartials``) cannot know it is being received.
    private func refreshReceivingUploads(now: Int64, into out: inout [ServerAction]) {
        guard files is SharedFileCatalog else { return }
        let refreshAfter = configuration.partialUploadMilliseconds / 4
        for (key, upload) in activeUploads where now - upload.partial.updated >= refreshAfter {
            activeUploads[key]?.partial.updated = now
            try? files.savePartial(activeUploads[key]!.partial)
        }
        writeSharedPartials(into: &out)
    }

    private func leaveRoomsOfReplacedDevices(now: Int64, into out: inout [ServerAction]) {
        while let leftover = replacedLeftovers.first, leftover.deadline <= now {
            replacedLeftovers.removeFirst()
            let key = ChatValidation.nickKey(leftover.nick)
            record(leftover.rooms.map { room in
                RoomEventDraft(event: StoredEvent(room: room, seq: 0, ts: now, kind: .left, sender: leftover.nick, text: "replaced"),
                               purpose: .notice, membership: .removeIfHeld([key], by: .thisNode(peer: leftover.peer)))
            }, now: now, into: &out)
        }
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

/// Where a nick is held (``ChatServerState/nickLookedUp(_:_:now:)``).
public struct NickHolder: Sendable, Equatable {
    public let node: String
    public let isThisNode: Bool
    /// The digest of the holding device's peer id (``ChatServerState/peerDigest``).
    public let device: String?

    public init(node: String, isThisNode: Bool, device: String? = nil) {
        self.node = node
        self.isThisNode = isThisNode
        self.device = device
    }
}

/// The rooms of a connection replaced through another node, to leave if it does not join them there.
struct ReplacedLeftover {
    let deadline: Int64
    let peer: String
    let nick: String
    let rooms: [String]
}
