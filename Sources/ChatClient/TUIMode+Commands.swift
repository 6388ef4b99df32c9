import ChatClientKit
import ChatProtocol
import ChatTUI

/// What an Enter does: a message to the room or conversation shown, or a command of the shared
/// table (``ClientCommands``), which the full-screen UI carries out through this conformance.
extension TUIMode: ScreenCommandContext {
    func submit(_ line: String) {
        if awaitingTrust != nil { return answered(trust: line) }
        if awaitingNick { return chose(nick: line) }
        // Line breaks at the end of a paste would only add empty rows.
        var line = line
        while line.last?.isNewline == true { line.removeLast() }
        guard !line.isEmpty else { return }
        inputHistory.append(line, history: editor.history)
        model.scrollToNewest()
        // In the view of what a search found, N Enter shows message N in its place.
        if model.currentRoom?.name == ChatViewModel.foundView, let number = ClientCommands.messageNumber(line) {
            return showFoundMessage(number)
        }
        ClientCommands.run(line, in: self)
    }

    var commandRoom: String? { currentChatRoom }
    var conversationNick: String? { model.currentRoom?.queryNick }

    func roomInfo(_ room: String) -> RoomMembers.Info { session.members.info(of: room) }

    func note(_ text: String) { note(text, in: currentRoomName) }

    func complain(_ text: String) { note(text, in: currentRoomName) }

    /// Sends a request, saying so when it waits for the connection to come back.
    func request(_ message: ChatMessage, doing what: String) {
        guard session.send(message) else { return note("too much waiting to be sent; \(what) not done", in: currentRoomName) }
        queuedNote(what)
    }

    /// A message (or an action) to the room or conversation shown, cut into pieces the protocol
    /// takes (4,096 bytes) when it is longer.
    func say(_ text: String, action: Bool) {
        if let nick = model.currentRoom?.queryNick { return sendPrivate(text, to: nick, action: action) }
        if model.currentRoom?.isView == true {
            model.notice = "nothing is sent from a view: /close it, or show a room"
            return
        }
        send(text, action: action, to: currentRoomName)
    }

    /// `/msg #room TEXT`: to a room joined; a note in the buffer shown when it is another.
    func say(_ text: String, inRoom room: String) {
        guard model.roomIndex(named: room) != nil else { return note("you are not in #\(room): /join \(room) first; nothing was sent", in: currentRoomName) }
        send(text, action: false, to: room)
        if currentRoomName != room { note("→ #\(room): \(text)", in: currentRoomName) }
    }

    private func send(_ text: String, action: Bool, to room: String) {
        for (piece, body) in MessageSplitter.pieces(of: text, action: action) {
            let id = ChatSession.randomPeerID()
            let line = ChatLine(timestamp: unixMilliseconds(), nick: model.nick, text: body, kind: .ownPending, id: id, isAction: action)
            let message = ChatMessage.msg(room: room, text: piece, id: id)
            guard session.send(message) else { return note("too much waiting to be sent; not sent: \(body)", in: room) }
            model.append(line, to: room)
            sentLines[id] = (room, line, message)
        }
    }

    /// `/msg NICK TEXT`: the conversation opens; a note in the buffer shown when it is another.
    func sendPrivate(_ text: String, to nick: String) {
        if model.queryIndex(nick) == nil { openConversation(with: nick) }
        sendPrivate(text, to: nick, action: false)
        if model.currentRoom?.queryNick?.lowercased() != nick.lowercased() {
            note("→ \(nick): \(text)", in: currentRoomName)
        }
    }

    func sendPrivate(_ text: String, to nick: String, action: Bool) {
        let buffer = model.rooms[model.openQuery(nick)].name
        for (piece, body) in MessageSplitter.pieces(of: text, action: action) {
            let id = ChatSession.randomPeerID()
            let line = ChatLine(timestamp: unixMilliseconds(), nick: model.nick, text: body, kind: .ownPending, id: id, isAction: action,
                                isPrivate: true)
            let message = ChatMessage.dm(to: nick, text: piece, id: id)
            guard session.send(message) else { return note("too much waiting to be sent; not sent: \(body)", in: buffer) }
            model.append(line, to: buffer)
            sentLines[id] = (buffer, line, message)
        }
    }

    /// The room is shown at once, before the server answers: what is typed next goes to it, also
    /// while the connection is down (issue 24, defect 2). A join the server refuses closes it.
    func join(_ room: String) {
        let index = model.openRoom(room)
        model.selectRoom(at: index)
        if session.rooms.contains(where: { $0.name == room }) { return }
        var message = ChatMessage.join(room: room)
        let id = ChatSession.randomPeerID()
        message.id = id
        pendingJoins[id] = room
        request(message, doing: "/join \(room)")
    }

    func part(_ room: String) {
        request(.part(room: room), doing: "/part \(room)")
    }

    /// `/away [REASON]` and `/back`: said, and shown on the status bar while away; the reason
    /// is kept for the run (issue 24, defect 6).
    func setAway(_ reason: String?) {
        let wasAway = model.awayReason != nil
        session.setStatus(reason == nil ? "online" : "away", reason: reason)
        model.setStatus(reason == nil ? .online : .away, of: model.nick)
        model.awayReason = reason
        if let reason {
            note("you are away" + (reason.isEmpty ? "" : ": \(reason)") + " (/back when you are back)", in: currentRoomName)
        } else {
            note(wasAway ? "you are back" : "you were not away", in: currentRoomName)
        }
        queuedNote(reason == nil ? "/back" : "/away")
    }

    func who() {
        let members = model.currentRoom?.members ?? []
        let room = model.currentRoom
        let list = (room.map { Renderer.memberOrder($0) } ?? members)
            .map { nick in room.map { Renderer.memberMarks(nick, in: $0, away: model.status(of: nick) == .away) + nick } ?? nick }
            .joined(separator: " ")
        note("\(members.count) here: \(list)", in: currentRoomName)
    }

    func history(_ count: Int?) {
        requestOlderHistory(limit: min(count ?? 50, 200), asked: true)
    }

    func isFile(_ path: String) -> Bool { FileTransfers.isReadableFile(path) }

    func cancel(_ number: Int) {
        if !session.files.cancel(number) { note("there is no transfer \(number)", in: currentRoomName) }
    }

    func quit(_ message: String?) {
        if let message { quitMessage = message }
        requestQuit()
    }

    func ignore(_ nick: String?) { note(ignoring.ignore(nick, ownNick: model.nick), in: currentRoomName) }

    func unignore(_ nick: String) { note(ignoring.unignore(nick), in: currentRoomName) }

    func lastlog(_ word: String) {
        model.showLastlog(word)
    }

    func urls() {
        model.showURLs()
    }

    func toggleMemberList() {
        model.showsMemberList.toggle()
        model.notice = model.showsMemberList ? "the member list is shown" : "the member list is hidden (/nicklist shows it)"
    }

    func smartFilter(_ on: Bool?) {
        if let on { smartFilter.isOn = on }
        note(SmartFilter.stateText(smartFilter.isOn), in: currentRoomName)
    }

    // MARK: The screen's own

    func query(_ nick: String, text: String?) {
        if model.queryIndex(nick) == nil { openConversation(with: nick) }
        if let index = model.queryIndex(nick) { model.selectRoom(at: index) }
        if let text { sendPrivate(text, to: nick, action: false) }
    }

    func close() {
        if let view = model.currentRoom, view.isView { return model.closeRoom(view.name) }
        if let room = currentChatRoom { return part(room) }
        closeConversation()
    }

    func clear() {
        model.clearLines(in: currentRoomName)
    }

    /// What it found is shown in place; that it found nothing is a notice, not a line of the room.
    func search(_ term: String?) {
        guard let term = term ?? model.lastSearchTerm else {
            model.notice = "usage: /search WORD"
            return
        }
        let older = term == model.lastSearchTerm
        if !model.search(term, older: older) { model.notice = "no \(older ? "older " : "")line with '\(term)'" }
    }

    /// `/buffer N`, `/buffer NAME` (the buffer of that name, else the first whose name contains
    /// it, ignoring case and a leading # or @), `/buffer` (the list, in a notice-free line).
    func buffer(_ target: String?) {
        guard let target else { return note(model.bufferList(), in: currentRoomName) }
        if let number = Int(target) {
            guard model.rooms.indices.contains(number - 1) else { return note("there is no buffer \(number)", in: currentRoomName) }
            return model.selectRoom(at: number - 1)
        }
        guard let index = model.bufferIndex(matching: target) else { return note("no buffer matches '\(target)'", in: currentRoomName) }
        model.selectRoom(at: index)
    }

    private func queuedNote(_ what: String) {
        if !session.isConnected { note("not connected: \(what) will be done once reconnected", in: currentRoomName) }
    }

    func openConversation(with nick: String) {
        let index = model.openQuery(nick)
        let stored = privateMessages.conversation(with: nick).map { privateLine(for: $0) }
        model.prependHistory(stored, to: model.rooms[index].name)
        privateMessages.setOpenConversations(model.rooms.compactMap(\.queryNick))
    }

    /// The conversations open when the client last quit, with their stored messages.
    func reopenConversations() {
        for nick in privateMessages.openConversations() where model.queryIndex(nick) == nil {
            openConversation(with: nick)
        }
    }

    private func closeConversation() {
        guard let room = model.currentRoom, room.isQuery else { return }
        model.closeRoom(room.name)
        privateMessages.setOpenConversations(model.rooms.compactMap(\.queryNick))
    }

    /// A stored or received private message as a line of its conversation.
    func privateLine(for message: ChatMessage) -> ChatLine {
        let mine = ChatValidation.nickKey(message.sender) == ChatValidation.nickKey(model.nick) && message.to != nil
            && ChatValidation.nickKey(message.to ?? "") != ChatValidation.nickKey(model.nick)
        let action = ChatAction.body(of: message.text)
        var line = ChatLine(timestamp: message.ts ?? unixMilliseconds(), nick: message.sender, text: action ?? message.text,
                            kind: mine ? .ownConfirmed : .directMessage, isAction: action != nil, isPrivate: true, seq: message.seq)
        // Version 1.2 (section 15): what a conversation's history says became of it.
        line.isEdited = message.edited != nil
        line.isRedacted = message.redacted == true
        return line
    }

    func note(_ text: String, in room: String) {
        model.append(ChatLine(timestamp: unixMilliseconds(), nick: "", text: text, kind: .event), to: room)
        needsRender = true
    }
}

extension TUIMode {
    var keyHelp: [String] { KeyHelp.lines }
}
