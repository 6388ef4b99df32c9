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
        if ChatValidation.nickKey(newNick) != ChatValidation.nickKey(session.nick) {
            return beginClusterRename(message, to: [newNick], session: session, into: &out)
        }
        rename(session, to: newNick, now: now, into: &out)
    }

    /// Changes the nick: the key moves, and each room of the renamer gets a stored `nick` event
    /// (with `ops` where the renamer is an operator); outside any room only the renamer hears it.
    /// `login`: a login's rename on a shared log, whose `account logged-in` follows the renames.
    func rename(_ session: ClientSession, to newNick: String, login: Bool = false, now: Int64, into out: inout [ServerAction]) {
        let oldNick = session.nick
        clientsByNickKey[ChatValidation.nickKey(oldNick)] = nil
        clientsByNickKey[ChatValidation.nickKey(newNick)] = session.id
        session.nick = newNick
        out.append(.log(.info, "nick change", logFields(session, ["old": oldNick])))

        guard !session.rooms.isEmpty else {
            var confirmation = ChatMessage(.nick, text: newNick, sender: oldNick, ts: now)
            confirmation.account = session.account
            sendChat(confirmation, to: session, into: &out)
            if login { sendLoggedIn(session, into: &out) }
            return
        }
        if login { session.loginRenamesLeft = session.rooms.count }
        let drafts = session.rooms.map { room in
            RoomEventDraft(event: StoredEvent(room: room, seq: 0, ts: now, kind: .nick, sender: oldNick, text: newNick,
                                              account: session.account),
                           ops: liveOperators(of: room, ifIncluding: session), origin: session, purpose: login ? .loginRename : .notice,
                           membership: .rename(fromKey: ChatValidation.nickKey(oldNick), to: memberRecord(of: session)))
        }
        record(drafts, now: now, into: &out)
    }
}

extension ChatServerState {
    /// One of a login's renames is stored and delivered (or failed): after the last one, the
    /// answer (PROTOCOL.md sections 7-8, item 9: `account logged-in`, after the renames).
    func loginRenamed(_ session: ClientSession, into out: inout [ServerAction]) {
        guard session.loginRenamesLeft > 0 else { return }
        session.loginRenamesLeft -= 1
        if session.loginRenamesLeft == 0 { sendLoggedIn(session, into: &out) }
    }

    /// A login's answer: `account logged-in`, with the nick the connection now has.
    func sendLoggedIn(_ session: ClientSession, into out: inout [ServerAction]) {
        guard let account = session.account else { return }
        sendChat(.accountNotice(nick: session.nick, account: account, text: "logged-in"), to: session, into: &out)
    }
}
