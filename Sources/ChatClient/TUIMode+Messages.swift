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
        if let seq = message.seq { oldestSeq[room] = min(oldestSeq[room] ?? seq, seq) }
        switch message.messageType {
        case .welcome:
            model.nick = message.sender
            highlights.nick = message.sender
            model.serverName = message.text.isEmpty ? model.serverName : message.text
            note("connected to \(message.text) as \(message.sender)" + (message.account.map { ", logged in as \($0)" } ?? ""),
                 in: currentRoomName)
        case .joined:
            if isLive && same(message.sender, me) {
                let index = model.openRoom(room)
                if room == roomToShow {
                    model.selectRoom(at: index)
                    roomToShow = nil
                }
            }
            add(ChatLine(timestamp: time, nick: message.sender, text: "joined", kind: .event), room: room, message: message)
        case .left:
            if isLive && same(message.sender, me) {
                model.closeRoom(room)
                return
            }
            if isLive { model.stopTyping(message.sender, in: room) }
            add(ChatLine(timestamp: time, nick: message.sender, text: "left (\(message.text))", kind: .event), room: room, message: message)
        case .msg:
            let action = ChatAction.body(of: message.text)
            let highlight = !same(message.sender, me) && highlights.matches(action ?? message.text)
            let line = ChatLine(timestamp: time, nick: message.sender, text: action ?? message.text, kind: isLive ? .message : .history,
                                id: message.id, isAction: action != nil, isHighlight: highlight)
            if isLive { model.stopTyping(message.sender, in: room) }
            add(line, room: room, message: message)
            if isLive && highlight { alert() }
        case .ack:
            guard let id = message.id else { break }
            _ = model.updateOwnMessage(id: id, kind: .ownConfirmed, timestamp: message.ts)
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
        case .dm:
            // A private message to us (or, written to ourselves, from us): its conversation.
            let other = same(message.sender, me) ? (message.to ?? message.sender) : message.sender
            if model.queryIndex(other) == nil { openConversation(with: other) }
            let buffer = model.rooms[model.openQuery(other)].name
            var line = privateLine(for: message)
            line.isHighlight = !same(message.sender, me)
            model.append(line, to: buffer)
            log?.write(line, room: buffer)
            privateMessages.append(message, conversationWith: other)
            if line.isHighlight { alert() }
        case .nick:
            model.renameUser(from: message.sender, to: message.text)
            model.renameQuery(from: message.sender, to: message.text)
            if same(message.sender, me) || same(message.text, model.nick) { highlights.nick = model.nick }
            if message.room != nil {
                add(ChatLine(timestamp: time, nick: message.sender, text: "is now \(message.text)", kind: .event), room: room, message: message)
            } else {
                note("\(message.sender) is now \(message.text)", in: currentRoomName)
            }
        case .status:
            model.setStatus(message.text == "away" ? .away : message.text == "offline" ? nil : .online, of: message.sender)
        case .typing, .presence:
            guard !same(message.sender, me) else { break }
            if message.text == "stop" {
                model.stopTyping(message.sender, in: room)
            } else {
                model.setTyping(message.sender, in: room, until: unixMilliseconds() + 6_000)
            }
        case .historyEnd:
            historyRequested.remove(room)
            let older = historyBuffer.removeValue(forKey: room) ?? []
            if older.isEmpty {
                model.markHistoryExhausted(in: room)
            } else {
                model.prependHistory(older, to: room)
            }
        case .error:
            var target = currentRoomName
            if let id = message.id, let sent = sentLines.removeValue(forKey: id) {
                model.updateOwnMessage(id: id, kind: .ownFailed)
                target = sent.buffer
                quitIfDelivered()
            }
            let explained = ErrorExplanation.text(of: message)
            if let room = message.room, model.roomIndex(named: room) != nil, target == currentRoomName { target = room }
            model.append(ChatLine(timestamp: time, nick: "", text: "\(message.code ?? "error"): \(explained)", kind: .error), to: target)
        case .file where message.file != nil:
            receivedFile(message, at: time)
        case .account, .topic, .kicked, .banned, .unbanned, .op, .deop, .mode, .invite, .rooms, .whois:
            receivedModeration(message)
        default:
            break
        }
    }

    /// A shared file: a line with its number in its room, or in the conversation with its sender.
    private func receivedFile(_ message: ChatMessage, at time: Int64) {
        let number = sharedFiles.number(for: message)
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

    /// Replayed events answering a `history` request are collected until `history-end`; live
    /// lines go to the log too.
    private func add(_ line: ChatLine, room: String, message: ChatMessage) {
        if message.replay == true, historyRequested.contains(room) {
            historyBuffer[room, default: []].append(line)
            return
        }
        model.append(line, to: room)
        if message.replay != true { log?.write(line, room: room) }
    }

    private func same(_ one: String, _ other: String) -> Bool {
        ChatValidation.nickKey(one) == ChatValidation.nickKey(other)
    }
}
