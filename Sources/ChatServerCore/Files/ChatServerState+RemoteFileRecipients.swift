import ChatProtocol

/// Private files (PROTOCOL.md section 9) for a user of another node of several (section 10): the
/// upload's header waits for the recipient's nick to be found in the shared store (the body's
/// bytes wait in the glue, their credit not returned); the file names the recipient's device, so
/// it may download it through any node; the notice goes through the node that holds the nick
/// when the file is stored, like a `dm`.
extension ChatServerState {
    func beginUploadRecipientLookup(_ message: ChatMessage, nick: String, on key: FileStreamKey, into out: inout [ServerAction]) {
        let token = nextIdentityToken(.uploadRecipient(key, request: message))
        out.append(.lookUpNick(token, nick: nick))
    }

    /// Where the recipient of an upload's header is: then the header is checked as any other.
    func uploadRecipientLookedUp(_ request: ChatMessage, on key: FileStreamKey, _ outcome: ClaimOutcome<NickHolder?>,
                                 now: Int64) -> [ServerAction] {
        guard let session = clients[key.client], session.phase == .active else { return [] }
        var out: [ServerAction] = []
        let remote: FileRecipient?
        switch outcome {
        case .failed:
            refuseFileStream(key, .unavailable, "the recipient cannot be looked up now; try again", id: request.id, into: &out)
            return out
        case .answered(let holder?) where !holder.isThisNode:
            // A lease without a device (written before devices were recorded) names nobody who
            // could download the file.
            remote = holder.device.map { FileRecipient(nick: request.to ?? "", device: $0) }
        case .answered:
            // Nobody, or a connection of this node (it came meanwhile): checked as here.
            remote = nil
        }
        loadFiles(for: request, on: key, session: session, remote: remote, into: &out)
        return out
    }

    /// A stored private file's notice: to its recipient here, or where its nick is now held (if
    /// by the same device), or to nobody (the recipient left; the file stays for it).
    func announcePrivateFile(_ notice: ChatMessage, to recipient: FileRecipient, into out: inout [ServerAction]) {
        if let session = activeSession(forNick: recipient.nick) {
            let sameDevice = recipient.peer.map { $0 == session.peer } ?? (recipient.device == peerDigest(session.peer))
            let sameAccount = recipient.account != nil && session.accountKey == recipient.account.map(ChatValidation.nickKey)
            if sameDevice || sameAccount { sendChat(notice, to: session, into: &out) }
            return
        }
        guard let device = recipient.device ?? recipient.peer.map(peerDigest) else { return }
        let token = nextIdentityToken(.fileNotice(nick: recipient.nick, device: device, payload: notice.encodedDatagram()))
        out.append(.lookUpNick(token, nick: recipient.nick))
    }

    func fileNoticeRecipientLookedUp(nick: String, device: String, payload: [UInt8], _ outcome: ClaimOutcome<NickHolder?>)
        -> [ServerAction] {
        guard case .answered(let holder?) = outcome, !holder.isThisNode, holder.device == device else {
            return [.log(.info, "file notice for a user no longer connected", [:])]
        }
        return [.sendToNode(nil, node: holder.node, .fileNotice(nick: nick, device: device, payload: payload))]
    }
}
