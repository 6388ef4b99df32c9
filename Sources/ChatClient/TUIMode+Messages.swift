import ChatClientKit
import ChatProtocol
import ChatTUI

/// What arrives from the server, turned into the view model. Member lists are not here: they
/// follow the session's ``RoomMembers`` (onMembersChanged), which keeps them equal to the
/// server's roster whatever order the streams deliver in.
extension TUIMode {
    func received(_ message: ChatMessage, channel: ChatSession.Channel) {
        let room = message.roomOrDefault
        let time = message.ts ?? unixMilliseconds()
        let me = session.nick
        let isLive = message.replay != true
        // A private conversation's seqs (version 1.2) are its own, not the lobby's.
        if let seq = message.seq, message.room != nil || message.messageType == .msg { oldestSeq[room] = min(oldestSeq[room] ?? seq, seq) }
        if ignoring.list.hides(message) { return }
        // A message stored twice across a server's crash is shown once.
        if repeatedMessages.isRepeat(message) { return }
        if Self.changesOwnRooms(message, me: me) { rememberedRooms?.write(session.rooms.map(\.name)) }
        let filtered = smartFilter.hides(message, ownNick: me, now: unixMilliseconds())
        switch message.messageType {
        case .welcome:
            model.nick = message.sender
            highlights.nick = message.sender
            model.serverName = message.text.isEmpty ? model.serverName : message.text
            note("connected to \(message.text) as \(message.sender)" + (message.account.map { ", logged in as \($0)" } ?? ""),
                 in: currentRoomName)
            // The nick asked for was taken: said as an error, which the replay coming next (older
            // lines, put before it) does not push away (issue 24, defect 14).
            if !same(message.sender, session.helloNick) {
                model.append(ChatLine(timestamp: time, nick: "", text: Self.nickTakenText(asked: session.helloNick, given: message.sender),
                                      kind: .error), to: currentRoomName)
            }
            showKeptPlaces(message)
        case .joined:
            if isLive && same(message.sender, me) {
                pendingJoins = pendingJoins.filter { $0.value != room }
                let index = model.openRoom(room)
                if room == roomToShow {
                    model.selectRoom(at: index)
                    roomToShow = nil
                }
            }
            if restartNoise.hides(message) || filtered { return }
            add(ChatLine(timestamp: time, nick: message.sender, text: "joined", kind: .event), room: room, message: message)
        case .left:
            if isLive && same(message.sender, me) {
                model.closeRoom(room)
                return
            }
            if isLive { model.stopTyping(message.sender, in: room) }
            if restartNoise.hides(message) || filtered { return }
            add(ChatLine(timestamp: time, nick: message.sender, text: "left (\(message.text))", kind: .event), room: room, message: message)
        case .msg:
            let action = ChatAction.body(of: message.text)
            let highlight = !same(message.sender, me) && highlights.matches(action ?? message.text)
            // Another device of the account said it (section 13): our own, as the server has it.
            let kind: ChatLine.Kind = !isLive ? .history : same(message.sender, me) ? .ownConfirmed : .message
            var line = ChatLine(timestamp: time, nick: message.sender, text: action ?? message.text, kind: kind,
                                id: message.id, isAction: action != nil, isHighlight: highlight, seq: message.seq)
            // Version 1.2 (section 15): what history says became of it, and the message it answers.
            line.isEdited = message.edited != nil
            line.isRedacted = message.redacted == true
            line.reply = message.ref.flatMap { model.replyQuote(seq: $0, in: room) }
            if isLive { model.stopTyping(message.sender, in: room) }
            add(line, room: room, message: message)
            if isLive && highlight { alert(line, in: room) }
        case .ack:
            guard let id = message.id else { break }
            acknowledgedChange(id)
            _ = model.updateOwnMessage(id: id, kind: .ownConfirmed, timestamp: message.ts, seq: message.seq)
            if let sent = sentLines.removeValue(forKey: id) {
                var line = sent.line
                line.timestamp = message.ts ?? line.timestamp
                line.kind = .ownConfirmed
                log?.write(line, room: sent.buffer)
                if sent.message.messageType == .dm, let to = sent.message.to {
                    var stored = sent.message
                    stored.sender = model.nick
                    stored.ts = message.ts
                    privateMessages.append(stored, conversationWith: to)
                }
            }
            quitIfDelivered()
        case .dm where message.replay == true:
            receivedStoredPrivate(message)
        case .read:
            receivedRead(message)
        case .found:
            receivedFound(message)
        case .away:
            // The server's answer to our private message: its recipient is away (section 14).
            let buffer = model.queryIndex(message.sender).map { model.rooms[$0].name } ?? currentRoomName
            model.append(ChatLine(timestamp: time, nick: message.sender, text: "is away" + (message.text.isEmpty ? "" : ": \(message.text)"),
                                  kind: .event), to: buffer)
        case .dm:
            // Away: the sender is told, after their message is shown.
            // A server that keeps away reasons (version 1.2) answers for us.
            let reason = session.features.contains(ServerFeature.alwaysOn) ? nil : model.awayReason
            let reply = awayReplies.reply(to: message, reason: reason, ownNick: me, now: unixMilliseconds())
            defer { if let reply, let to = reply.to { sendPrivate(ChatAction.body(of: reply.text) ?? reply.text, to: to, action: true) } }
            // One we wrote to ourselves comes back (before or after its ack): its line is there already.
            if same(message.sender, me), let id = message.id,
               model.queryIndex(me).map({ model.rooms[$0].lines.contains { $0.id == id } }) == true { break }
            // A private message to us (or, written to ourselves, from us): its conversation.
            let other = same(message.sender, me) ? (message.to ?? message.sender) : message.sender
            if model.queryIndex(other) == nil { openConversation(with: other) }
            let buffer = model.rooms[model.openQuery(other)].name
            model.stopTyping(message.sender, in: buffer)
            var line = privateLine(for: message)
            line.isHighlight = !same(message.sender, me)
            model.append(line, to: buffer)
            log?.write(line, room: buffer)
            privateMessages.append(message, conversationWith: other)
            if line.isHighlight { alert(line, in: buffer) }
        case .nick:
            model.renameUser(from: message.sender, to: message.text)
            model.renameQuery(from: message.sender, to: message.text)
            if same(message.sender, me) || same(message.text, model.nick) { highlights.nick = model.nick }
            if message.room != nil {
                if filtered { return }
                add(ChatLine(timestamp: time, nick: message.sender, text: "is now \(message.text)", kind: .event), room: room, message: message)
            } else {
                note("\(message.sender) is now \(message.text)", in: currentRoomName)
            }
        case .status:
            model.setStatus(message.text == "away" ? .away : message.text == "offline" ? nil : .online, of: message.sender)
        case .typing, .presence:
            guard !same(message.sender, me) else { break }
            // `@NICK`: typing in the private conversation with NICK, whatever case its buffer has.
            let buffer = room.hasPrefix(ChatRoom.queryPrefix)
                ? model.queryIndex(String(room.dropFirst(ChatRoom.queryPrefix.count))).map { model.rooms[$0].name } : room
            guard let buffer else { break }
            if message.text == "stop" {
                model.stopTyping(message.sender, in: buffer)
            } else {
                model.setTyping(message.sender, in: buffer, until: unixMilliseconds() + 6_000)
            }
        case .historyEnd where message.with != nil:
            if let with = message.with, let index = model.queryIndex(with) { showJumpTarget(in: model.rooms[index].name) }
        case .historyEnd:
            historyRequested.remove(room)
            let jumping = jumpTarget?.buffer == room
            // Messages around one a search found may include some shown already.
            let older = (historyBuffer.removeValue(forKey: room) ?? []).filter { line in
                !jumping || line.seq.map { !model.hasMessage(seq: $0, in: room) } ?? true
            }
            if older.isEmpty {
                if !jumping { model.markHistoryExhausted(in: room) }
            } else {
                model.prependHistory(older, to: room)
            }
            if jumping { showJumpTarget(in: room) }
            if historyAnnounced.remove(room) != nil, model.currentRoom?.name == room {
                model.notice = older.isEmpty ? "#\(room) has no older events"
                    : "\(older.count) older event\(older.count == 1 ? "" : "s") of #\(room) above (PgUp shows them)"
            }
        case .error:
            if let id = message.id, let room = pendingJoins.removeValue(forKey: id), !session.rooms.contains(where: { $0.name == room }) {
                model.closeRoom(room)
            }
            if let id = message.id { sentChanges[id] = nil }
            var target = currentRoomName
            if let id = message.id, let sent = sentLines.removeValue(forKey: id) {
                model.updateOwnMessage(id: id, kind: .ownFailed)
                target = sent.buffer
                quitIfDelivered()
            }
            let explained = ErrorExplanation.text(of: message)
            if let room = message.room, model.roomIndex(named: room) != nil, target == currentRoomName { target = room }
            model.append(ChatLine(timestamp: time, nick: "", text: explained, kind: .error), to: target)
        case .file where message.file != nil:
            receivedFile(message, at: time)
        case .account, .topic, .kicked, .banned, .unbanned, .op, .deop, .mode, .invite, .rooms, .whois:
            receivedModeration(message)
        // Version 1.2 (section 15): changes to a message shown, found by its seq.
        // In a private conversation they carry `sender` and `to`, no room (section 17).
        case .edit, .redact, .react, .unreact:
            if let buffer = changeBuffer(of: message) { apply(change: message, by: message.sender, in: buffer) }
        default:
            break
        }
    }

    /// A shared file: a line with its number in its room, or in the conversation with its sender.
    private func receivedFile(_ message: ChatMessage, at time: Int64) {
        let number = session.files.number(forShared: message)
        let text = "shared \(message.text) (\(FileTransfer.bytes(message.size ?? 0))) [file \(number)], /get \(number) downloads it"
        let line = ChatLine(timestamp: time, nick: message.sender, text: text, kind: message.replay == true ? .history : .event)
        if let room = message.room { return add(line, room: room, message: message) }
        if model.queryIndex(message.sender) == nil { openConversation(with: message.sender) }
        model.append(line, to: model.rooms[model.openQuery(message.sender)].name)
    }

    /// ``add(_:room:message:)`` for the moderation events.
    func addEvent(_ line: ChatLine, room: String, message: ChatMessage) {
        add(line, room: room, message: message)
    }

    /// Replayed events answering a `history` request are collected until `history-end`; other
    /// replayed events (a join's, a reconnect's) take their place in time, before the notes of
    /// the reconnect that brought them (issue 24, defect 15); live lines go to the log too.
    private func add(_ line: ChatLine, room: String, message: ChatMessage) {
        if message.replay == true, historyRequested.contains(room) {
            historyBuffer[room, default: []].append(line)
            return
        }
        if message.replay == true {
            model.insertInTimeOrder(line, to: room)
        } else {
            model.append(line, to: room)
            log?.write(line, room: room)
        }
    }

    /// "you asked for alice, which is taken: ..." (someone's account, or a nick in use).
    static func nickTakenText(asked: String, given: String) -> String {
        "the nick \(asked) is taken (someone's account, or someone connected with it): you are \(given). "
            + "/login \(asked) if the account is yours, /nick for another"
    }

    private func same(_ one: String, _ other: String) -> Bool {
        ChatValidation.nickKey(one) == ChatValidation.nickKey(other)
    }
}

extension TUIMode {
    /// Our own live `joined` or `left`, or a kick or ban of us: the rooms we are in changed.
    static func changesOwnRooms(_ message: ChatMessage, me: String) -> Bool {
        guard message.replay != true else { return false }
        switch message.messageType {
        case .joined, .left: return ChatValidation.nickKey(message.sender) == ChatValidation.nickKey(me)
        case .kicked, .banned: return RoomMembers.removesOwnNick(message, me)
        default: return false
        }
    }
}
