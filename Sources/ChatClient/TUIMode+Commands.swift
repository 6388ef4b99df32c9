import ChatClientKit
import ChatProtocol
import ChatTUI

/// What an Enter does: a message to the room or conversation shown, or a command.
extension TUIMode {
    func submit(_ line: String) {
        if awaitingTrust != nil { return answered(trust: line) }
        if awaitingNick { return chose(nick: line) }
        // Line breaks at the end of a paste would only add empty rows.
        var line = line
        while line.last?.isNewline == true { line.removeLast() }
        guard !line.isEmpty else { return }
        model.scrollToNewest()
        switch ClientCommand(parsing: line) {
        case .say(let text):
            say(text, action: false)
        case .action(let text):
            say(text, action: true)
        case .privateMessage(let nick, let text):
            guard ChatValidation.isValidNick(nick) else { return note("'\(nick)' is not a valid nick", in: currentRoomName) }
            if model.queryIndex(nick) == nil { openConversation(with: nick) }
            sendPrivate(text, to: nick, action: false)
            if model.currentRoom?.queryNick?.lowercased() != nick.lowercased() {
                note("→ \(nick): \(text)", in: currentRoomName)
            }
        case .query(let nick, let text):
            guard ChatValidation.isValidNick(nick) else { return note("'\(nick)' is not a valid nick", in: currentRoomName) }
            if model.queryIndex(nick) == nil { openConversation(with: nick) }
            if let index = model.queryIndex(nick) { model.selectRoom(at: index) }
            if let text { sendPrivate(text, to: nick, action: false) }
        case .join(let typed):
            join(typed)
        case .part(let typed):
            guard let room = typed ?? currentChatRoom else { return closeConversation() }
            request(.part(room: room), doing: "/part \(room)")
        case .nick(let nick):
            if let problem = ClientOptions.nickProblem(nick) { return note(problem, in: currentRoomName) }
            request(.nick(nick), doing: "/nick \(nick)")
        case .away:
            session.setStatus("away")
            model.setStatus(.away, of: model.nick)
            queuedNote("/away")
        case .back:
            session.setStatus("online")
            model.setStatus(.online, of: model.nick)
            queuedNote("/back")
        case .who:
            who()
        case .history(let count):
            requestOlderHistory(limit: min(count ?? 50, 200))
        case .close:
            if currentChatRoom == nil {
                closeConversation()
            } else if let room = currentChatRoom {
                request(.part(room: room), doing: "/part \(room)")
            }
        case .clear:
            model.clearLines(in: currentRoomName)
        case .search(let term):
            guard let term = term ?? model.lastSearchTerm else { return note("usage: /search WORD", in: currentRoomName) }
            let older = term == model.lastSearchTerm
            if !model.search(term, older: older) { note("no \(older ? "older " : "")line with '\(term)'", in: currentRoomName) }
        case .buffer(let number):
            guard model.rooms.indices.contains(number - 1) else { return note("there is no buffer \(number)", in: currentRoomName) }
            model.selectRoom(at: number - 1)
        case .help(let name):
            help(name)
        case .send(let nick, let path):
            send(path, to: nick)
        case .get(let number, let folder):
            get(number, into: folder)
        case .cancel(let number):
            if !session.files.cancel(number) { note("there is no transfer \(number)", in: currentRoomName) }
        case .quit:
            requestQuit()
        case .usage(let name):
            note("usage: \(ClientCommand.description(of: name)?.usage ?? "/" + name)", in: currentRoomName)
        case .unknown(let name):
            note("unknown command \(name), /help lists them", in: currentRoomName)
        case .register:
            askForSecret(.register)
        case .login(let name):
            if let problem = ClientOptions.nickProblem(name) { return note(problem, in: currentRoomName) }
            askForSecret(.login(name))
        case .password:
            askForSecret(.changePassword)
        case .certificate, .claim, .topic, .kick, .ban, .unban, .op, .deop, .mode, .invite, .rooms, .whois:
            moderate(ClientCommand(parsing: line))
        }
    }

    /// A message (or an action) to the room or conversation shown, cut into pieces the protocol
    /// takes (4,096 bytes) when it is longer.
    private func say(_ text: String, action: Bool) {
        if let nick = model.currentRoom?.queryNick { return sendPrivate(text, to: nick, action: action) }
        let room = currentRoomName
        for (piece, body) in Self.pieces(of: text, action: action) {
            let id = ChatSession.randomPeerID()
            let line = ChatLine(timestamp: unixMilliseconds(), nick: model.nick, text: body, kind: .ownPending, id: id, isAction: action)
            let message = ChatMessage.msg(room: room, text: piece, id: id)
            guard session.send(message) else { return note("too much waiting to be sent; not sent: \(body)", in: room) }
            model.append(line, to: room)
            sentLines[id] = (room, line, message)
        }
    }

    private func sendPrivate(_ text: String, to nick: String, action: Bool) {
        let buffer = model.rooms[model.openQuery(nick)].name
        for (piece, body) in Self.pieces(of: text, action: action) {
            let id = ChatSession.randomPeerID()
            let line = ChatLine(timestamp: unixMilliseconds(), nick: model.nick, text: body, kind: .ownPending, id: id, isAction: action,
                                isPrivate: true)
            let message = ChatMessage.dm(to: nick, text: piece, id: id)
            guard session.send(message) else { return note("too much waiting to be sent; not sent: \(body)", in: buffer) }
            model.append(line, to: buffer)
            sentLines[id] = (buffer, line, message)
        }
    }

    /// The texts to send (within the protocol's 4,096 bytes, an action's prefix included) and
    /// what each shows.
    static func pieces(of text: String, action: Bool) -> [(wire: String, shown: String)] {
        guard action else { return MessageSplitter.split(text).map { ($0, $0) } }
        return MessageSplitter.split(text, limit: ChatLimits.maxTextBytes - ChatAction.prefix.utf8.count)
            .map { (ChatAction.text(for: $0), $0) }
    }

    private func join(_ typed: String) {
        let room: String
        do {
            room = try ClientOptions.room(typed)
        } catch {
            return note(error.message, in: currentRoomName)
        }
        if session.rooms.contains(where: { $0.name == room }), model.roomIndex(named: room) != nil {
            model.selectRoom(named: room)
            return
        }
        roomToShow = room
        request(.join(room: room), doing: "/join \(room)")
    }

    /// Sends a request, saying so when it waits for the connection to come back.
    func request(_ message: ChatMessage, doing what: String) {
        guard session.send(message) else { return note("too much waiting to be sent; \(what) not done", in: currentRoomName) }
        queuedNote(what)
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
        return ChatLine(timestamp: message.ts ?? unixMilliseconds(), nick: message.sender, text: action ?? message.text,
                        kind: mine ? .ownConfirmed : .directMessage, isAction: action != nil, isPrivate: true)
    }

    private func who() {
        let members = model.currentRoom?.members ?? []
        let room = model.currentRoom
        let list = members.sorted { $0.lowercased() < $1.lowercased() }
            .map { nick in
                let key = nick.lowercased()
                if room?.operators.contains(key) == true { return "@" + nick }
                if model.status(of: nick) == .away { return "~" + nick }
                return room?.identified.contains(key) == true ? "+" + nick : nick
            }.joined(separator: " ")
        note("\(members.count) here: \(list)", in: currentRoomName)
    }

    private func help(_ name: String?) {
        if let name {
            guard let description = ClientCommand.description(of: name) else {
                return note("no command /\(name), /help lists them", in: currentRoomName)
            }
            return note("\(description.usage): \(description.summary)", in: currentRoomName)
        }
        note("commands: " + ClientCommand.descriptions.map(\.usage).joined(separator: ", ") + "; /help COMMAND explains one", in: currentRoomName)
        note("keys: Alt-1..9 (Alt-0: 10) or Ctrl-N/Ctrl-P switch rooms, Alt-Tab or Alt-A the next with activity; PgUp/PgDn scroll, "
             + "End (at the end of the input) back to the newest; Ctrl-R search again; Ctrl-L redraw; Ctrl-Z suspend; Ctrl-C quit; "
             + "//text sends a line starting with /", in: currentRoomName)
    }

    func note(_ text: String, in room: String) {
        model.append(ChatLine(timestamp: unixMilliseconds(), nick: "", text: text, kind: .event), to: room)
        needsRender = true
    }
}
