import ChatClientKit
import ChatProtocol
import ChatTUI

/// What arrives from the server, turned into the view model.
extension TUIMode {
    func received(_ message: ChatMessage, channel: ChatSession.Channel) {
        let room = message.room ?? "lobby"
        let time = message.ts ?? unixMilliseconds()
        let me = session.nick
        if let seq = message.seq { oldestSeq[room] = min(oldestSeq[room] ?? seq, seq) }
        switch message.type {
        case "welcome":
            model.nick = message.sender
            note("connected as \(message.sender)", in: currentRoomName)
        case "joined":
            if message.sender == me && message.replay != true {
                let index = model.openRoom(room)
                if model.rooms.count == 1 || room == pendingJoin { model.selectRoom(at: index) }
            }
            model.addMember(message.sender, to: room)
            add(ChatLine(timestamp: time, nick: message.sender, text: "joined", kind: .event), room: room, message: message)
        case "left":
            if message.sender == me && message.replay != true {
                model.closeRoom(room)
                return
            }
            if message.replay != true { model.removeMember(message.sender, from: room) }
            add(ChatLine(timestamp: time, nick: message.sender, text: "left (\(message.text))", kind: .event), room: room, message: message)
        case "msg":
            let kind: ChatLine.Kind = message.replay == true ? .history : .message
            add(ChatLine(timestamp: time, nick: message.sender, text: message.text, kind: kind, id: message.id), room: room, message: message)
        case "ack":
            if let id = message.id { _ = model.updateOwnMessage(id: id, kind: .ownConfirmed, timestamp: message.ts) }
        case "dm":
            model.append(ChatLine(timestamp: time, nick: message.sender, text: "→ \(message.to ?? me): \(message.text)", kind: .directMessage),
                         to: currentRoomName)
        case "nick":
            model.renameUser(from: message.sender, to: message.text)
            if message.room != nil {
                add(ChatLine(timestamp: time, nick: message.sender, text: "is now \(message.text)", kind: .event), room: room, message: message)
            } else {
                note("\(message.sender) is now \(message.text)", in: currentRoomName)
            }
        case "roster":
            model.setMembers(message.members ?? [], in: room)
        case "status":
            model.setStatus(message.text == "away" ? .away : message.text == "offline" ? nil : .online, of: message.sender)
        case "typing", "presence":
            if message.text == "stop" {
                model.stopTyping(message.sender, in: room)
            } else {
                model.setTyping(message.sender, in: room, until: unixMilliseconds() + 6_000)
            }
        case "history-end":
            historyRequested.remove(room)
            let older = historyBuffer.removeValue(forKey: room) ?? []
            if older.isEmpty {
                model.markHistoryExhausted(in: room)
            } else {
                model.prependHistory(older, to: room)
            }
        case "error":
            if let id = message.id, model.updateOwnMessage(id: id, kind: .ownFailed) { }
            model.append(ChatLine(timestamp: time, nick: "", text: "\(message.code ?? "error"): \(message.text)", kind: .error),
                         to: currentRoomName)
        default:
            break
        }
    }

    /// Replayed events answering a `history` request are collected until `history-end`.
    private func add(_ line: ChatLine, room: String, message: ChatMessage) {
        if message.replay == true, historyRequested.contains(room) {
            historyBuffer[room, default: []].append(line)
            return
        }
        model.append(line, to: room)
    }

    func note(_ text: String, in room: String) {
        model.append(ChatLine(timestamp: unixMilliseconds(), nick: "", text: text, kind: .event), to: room)
    }
}
