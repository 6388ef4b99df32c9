import ChatProtocol

/// `nick`: one stored `nick` event per room of the renamer, to each room's members and the
/// renamer (PROTOCOL.md section 3).
extension ChatServerState {
    func handleNickChange(_ message: ChatMessage, from session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        let newNick = message.text
        guard ChatValidation.isValidNick(newNick) else {
            sendError(.badNick, id: message.id, to: session, into: &out)
            return
        }
        let oldNick = session.nick
        // The renamer always hears back. Outside any room, and for a nick that did not change,
        // that is one unstored `nick` without room or seq: there is no room event to store.
        let unstoredConfirmation = ChatMessage(.nick, text: newNick, sender: oldNick, ts: now)
        guard newNick != oldNick else {
            sendChat(unstoredConfirmation, to: session, into: &out)
            return
        }
        if let holder = activeSession(forNick: newNick), holder !== session {
            sendError(.nickInUse, "nick '\(newNick)' is taken", id: message.id, to: session, into: &out)
            return
        }
        clientsByNickKey[ChatValidation.nickKey(oldNick)] = nil
        clientsByNickKey[ChatValidation.nickKey(newNick)] = session.id
        session.nick = newNick
        out.append(.log(.info, "nick change", logFields(session, ["old": oldNick])))

        guard !session.rooms.isEmpty else {
            sendChat(unstoredConfirmation, to: session, into: &out)
            return
        }
        let events = session.rooms.map { room in
            makeEvent(.nick, in: room, sender: oldNick, text: newNick, now: now, into: &out)
        }
        _ = persist(events, into: &out)
        for event in events {
            broadcast(event.message(replay: false), toMembersOf: event.room, into: &out)
        }
    }
}
