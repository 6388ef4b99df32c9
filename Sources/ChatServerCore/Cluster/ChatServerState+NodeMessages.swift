import ChatProtocol

/// With a shared store (`--cluster`): what one node asks of another through its inbox. A `dm` to
/// a nick of another node (its receipt looked up first, for a resend through another node), a
/// kick or an invite of someone connected elsewhere, and what arrives in this node's inbox: a
/// `dm`, a file offer, a kick, an invite, or word that a device moved here from elsewhere.
extension ChatServerState {
    /// A `dm` with an id: its receipt first, which the first send may have left through another
    /// node (the client moved after its ack was lost). Also a room `msg` with an id that would be
    /// refused (not a member, say): a resend arriving before the re-join still gets its ack
    /// (docs/PROTOCOL.md section 2, item 12).
    func beginDirectReceiptLookup(_ request: ChatMessage, id: String, session: ClientSession, into out: inout [ServerAction]) {
        let token = nextIdentityToken(.directMessageReceipt(session.id, request: request))
        session.awaitsReceipt = true
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

    /// The answer to ``ServerAction/lookUpDirectReceipt(_:peer:id:)``: the receipt of the first send
    /// of this id (acknowledged again, delivered nowhere), or nil (a `dm` is delivered now, a room
    /// `msg` checked as a new one).
    public func directReceiptLookedUp(_ token: UInt64, _ outcome: ClaimOutcome<MessageReceipt?>, now: Int64) -> [ServerAction] {
        guard case .directMessageReceipt(let client, let request)? = pendingIdentities.removeValue(forKey: token) else {
            return [.log(.warning, "unknown receipt lookup", ["token": String(token)])]
        }
        guard let session = clients[client] else { return [] }
        var out: [ServerAction] = []
        session.awaitsReceipt = false
        switch outcome {
        case .failed:
            // Nothing was stored: the receipt was being looked up.
            sendError(.unavailable, "the message could not be sent; send it again", id: request.id, stored: false, to: session, into: &out)
        case .answered(let receipt?):
            sendChat(.ack(id: request.id, room: receipt.room, seq: receipt.seq, ts: receipt.ts), to: session, into: &out)
        case .answered(nil) where request.messageType == .msg:
            handleRoomMessage(request, from: session, receiptChecked: true, now: now, into: &out)
        case .answered(nil):
            deliverDirectMessage(request, to: request.to ?? "", from: session, now: now, into: &out)
        }
        // What came after it on the chat stream waited for this answer.
        releaseHeldMessages(of: session, now: now, into: &out)
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
            // The console's kick (no requester) is answered on the terminal.
            if requester == nil, case .failed(let failure) = outcome {
                out.append(.consoleLine("'\(ChatValidation.excerpt(nick))' could not be looked up (\(failure)); try again"))
            } else if requester == nil {
                out.append(.consoleLine("no user '\(ChatValidation.excerpt(nick))' is connected"))
            }
            return out
        }
        out.append(.sendToNode(nil, node: holder.node, .kick(nick: nick, reason: reason, by: by)))
        if let asker {
            sendChat(ChatMessage(type: MessageType.kicked.rawValue, text: reason, sender: asker.nick, ts: now, to: nick), to: asker, into: &out)
        } else if requester == nil {
            out.append(.consoleLine("kick of \(nick) sent to node \(holder.node)"))
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
    func replacedElsewhere(_ session: ClientSession, now: Int64, into out: inout [ServerAction]) {
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
}
