import ChatProtocol

/// `msg` and `dm`: validate, store, acknowledge, deliver. A resend of an id the peer already
/// sent is acknowledged again from its receipt and not delivered twice.
extension ChatServerState {
    /// `receiptChecked`: the shared store answered that the id was not sent before.
    func handleRoomMessage(_ message: ChatMessage, from session: ClientSession, receiptChecked: Bool = false, now: Int64,
                           into out: inout [ServerAction]) {
        guard hasValidID(message, from: session, into: &out) else { return }
        // Checked first: a resend may arrive before the client re-joined the room, and the
        // message was accepted back then. (A shared log deduplicates in the append itself, and
        // a message it would refuse asks the store for the id's receipt first.)
        guard let room = ChatValidation.normalizeRoom(message.roomOrDefault) else {
            sendError(.badRoom, id: message.id, to: session, into: &out)
            return
        }
        let denial = session.isMember(of: room) ? speakingDenial(of: session, in: room) : (.notJoined, "you are not in room '\(room)'")
        if let (code, reason) = denial {
            if !receiptChecked, let id = message.id {
                return beginDirectReceiptLookup(message, id: id, session: session, into: &out)
            }
            sendError(code, reason, id: message.id, room: session.isMember(of: room) ? room : nil, to: session, into: &out)
            return
        }
        guard let text = sanitizedText(of: message, from: session, into: &out) else { return }
        let event = StoredEvent(room: room, seq: 0, ts: now, kind: .msg, sender: session.nick, text: text, id: message.id,
                                account: session.account)
        // No ack without a commit: the client keeps the message and resends it later.
        record([RoomEventDraft(event: event, origin: session, purpose: .message(id: message.id))], now: now, into: &out)
    }

    func handleDirectMessage(_ message: ChatMessage, from session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        guard hasValidID(message, from: session, into: &out) else { return }
        if acknowledgeResend(message, from: session, into: &out) { return }
        guard let recipientNick = message.to, !recipientNick.isEmpty else {
            sendError(.badField, "dm needs 'to'", id: message.id, to: session, into: &out)
            return
        }
        // With a shared store the first send may have gone through another node: its receipt
        // is in the store.
        if let id = message.id { return beginDirectReceiptLookup(message, id: id, session: session, into: &out) }
        deliverDirectMessage(message, to: recipientNick, from: session, now: now, into: &out)
    }

    /// A `dm` known not to be a resend: to the recipient here, or (shared store) on its node.
    func deliverDirectMessage(_ message: ChatMessage, to recipientNick: String, from session: ClientSession, now: Int64,
                              into out: inout [ServerAction]) {
        // A nick held by no connection here may be another node's (the store says).
        let local = activeSession(forNick: recipientNick)
        guard let text = sanitizedText(of: message, from: session, into: &out) else { return }
        guard let recipient = local else { return beginRemoteDirectMessage(message, text: text, session: session, into: &out) }
        if let id = message.id {
            guard persist([], receipts: [MessageReceipt(peer: session.peer, id: id, ts: now)], into: &out) else { return }
            out.append(.storeDirectReceipt(peer: session.peer, id: id, ts: now))
        }
        let delivered = ChatMessage(
            type: MessageType.dm.rawValue, text: text, sender: session.nick, id: message.id, ts: now, to: recipient.nick,
            account: session.account)
        sendChat(.ack(id: message.id, ts: now), to: session, into: &out)
        sendChat(delivered, to: recipient, into: &out)
    }

    /// An absent `id` is allowed (no deduplication); a present one must follow the id rule of
    /// PROTOCOL.md section 12, since it is stored, relayed to every recipient and echoed.
    private func hasValidID(_ message: ChatMessage, from session: ClientSession, into out: inout [ServerAction]) -> Bool {
        guard let id = message.id, !ChatValidation.isValidMessageID(id) else { return true }
        sendError(.badField, "id must be 1 to \(ChatLimits.maxMessageIDBytes) ASCII letters, digits, '-', '_', '.' or ':'",
                  to: session, into: &out)
        return false
    }

    /// The text with control characters removed, or nil after answering the sender's error
    /// (`too-large`, or `bad-field` when nothing is left).
    private func sanitizedText(of message: ChatMessage, from session: ClientSession, into out: inout [ServerAction]) -> String? {
        do {
            return try ChatValidation.sanitizeText(message.text)
        } catch {
            sendError(error, id: message.id, to: session, into: &out)
            return nil
        }
    }

    /// Answers a message whose id this peer already sent with the original ack; true if it did.
    /// Ids are per peer and shared by `msg` and `dm`.
    private func acknowledgeResend(_ message: ChatMessage, from session: ClientSession, into out: inout [ServerAction]) -> Bool {
        guard let id = message.id, let receipt = storedReceipt(peer: session.peer, id: id, into: &out) else { return false }
        sendChat(.ack(id: id, room: receipt.room, seq: receipt.seq, ts: receipt.ts), to: session, into: &out)
        return true
    }
}
