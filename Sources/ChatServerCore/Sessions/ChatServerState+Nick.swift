import ChatProtocol

/// `nick`: one stored `nick` event per room of the renamer, to each room's members and the
/// renamer (PROTOCOL.md section 3). A nick that is an account is reserved for that account's
/// connections (section 7).
extension ChatServerState {
    func handleNickChange(_ message: ChatMessage, from session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        let newNick = message.text
        guard ChatValidation.isValidNick(newNick) else {
            sendError(.badNick, id: message.id, to: session, into: &out)
            return
        }
        // The renamer always hears back. Outside any room, and for a nick that did not change,
        // that is one unstored `nick` without room or seq: there is no room event to store.
        guard newNick != session.nick else {
            sendChat(ChatMessage(.nick, text: newNick, sender: session.nick, ts: now), to: session, into: &out)
            return
        }
        if let holder = activeSession(forNick: newNick), holder !== session {
            sendError(.nickInUse, "nick '\(newNick)' is taken", id: message.id, to: session, into: &out)
            return
        }
        if isReserved(newNick, toOtherThan: session.accountKey, certificate: session.certificate, into: &out) {
            sendError(.nickRegistered, "nick '\(newNick)' is a registered account; log in to it to take it", id: message.id, to: session,
                      into: &out)
            return
        }
        // Another spelling of its own nick is always the renamer's; any other nick may be another node's.
        if roomLog == .shared && ChatValidation.nickKey(newNick) != ChatValidation.nickKey(session.nick) {
            return beginClusterRename(message, to: [newNick], session: session, into: &out)
        }
        rename(session, to: newNick, now: now, into: &out)
    }

    /// Changes the nick: the key moves, and each room of the renamer gets a stored `nick` event
    /// (with `ops` where the renamer is an operator); outside any room only the renamer hears it.
    func rename(_ session: ClientSession, to newNick: String, now: Int64, into out: inout [ServerAction]) {
        let oldNick = session.nick
        clientsByNickKey[ChatValidation.nickKey(oldNick)] = nil
        clientsByNickKey[ChatValidation.nickKey(newNick)] = session.id
        session.nick = newNick
        out.append(.log(.info, "nick change", logFields(session, ["old": oldNick])))

        guard !session.rooms.isEmpty else {
            var confirmation = ChatMessage(.nick, text: newNick, sender: oldNick, ts: now)
            confirmation.account = session.account
            sendChat(confirmation, to: session, into: &out)
            return
        }
        let drafts = session.rooms.map { room in
            RoomEventDraft(event: StoredEvent(room: room, seq: 0, ts: now, kind: .nick, sender: oldNick, text: newNick,
                                              account: session.account),
                           ops: liveOperators(of: room, ifIncluding: session), origin: session, purpose: .notice,
                           membership: .rename(fromKey: ChatValidation.nickKey(oldNick), to: memberRecord(of: session)))
        }
        record(drafts, now: now, into: &out)
    }
}
