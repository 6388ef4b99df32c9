import ChatClientKit
import ChatProtocol
import ChatTUI

/// Moderation in the full-screen client (PROTOCOL.md section 8): the commands act on the room
/// shown; the events and answers are shown in the room they are about, as IRC clients show them.
extension TUIMode {
    func moderate(_ command: ClientCommand) {
        guard let room = currentChatRoom ?? serverWide(command) else {
            return note("moderation commands act on a room: show one first", in: currentRoomName)
        }
        let info = session.members.info(of: room)
        switch command {
        case .certificate(let add): request(.certificate(add: add), doing: "/certificate")
        case .claim: request(.claim(room: room), doing: "/claim")
        case .topic(nil): note(info.topic.map { "topic of #\(room): \($0)" } ?? "#\(room) has no topic", in: room)
        case .topic(let text?): request(.topic(room: room, text: text), doing: "/topic")
        case .kick(let nick, let reason, let server): request(.kick(room: server ? nil : room, nick: nick, reason: reason), doing: "/kick \(nick)")
        case .ban(let target, let reason, let server): request(.ban(room: server ? nil : room, target: target, reason: reason), doing: "/ban \(target)")
        case .unban(let target, let server): request(.unban(room: server ? nil : room, target: target), doing: "/unban \(target)")
        case .op(let name): request(.op(room: room, account: name), doing: "/op \(name)")
        case .deop(let name): request(.deop(room: room, account: name), doing: "/deop \(name)")
        case .mode(nil): note("modes of #\(room): " + (info.modes.isEmpty ? "none" : info.modes.map { "+" + $0 }.joined(separator: " ")), in: room)
        case .mode(let change?):
            guard RoomModeChange(change) != nil else { return note("a mode is +invite, -invite, +registered or -registered", in: room) }
            request(.mode(room: room, change), doing: "/mode \(change)")
        case .invite(let nick): request(.invite(room: room, nick: nick), doing: "/invite \(nick)")
        case .rooms: request(.listRooms(), doing: "/rooms")
        case .whois(let nick): request(.whois(nick), doing: "/whois \(nick)")
        default: break
        }
    }

    /// Commands that need no room when a private conversation is shown: the room stands for nothing.
    private func serverWide(_ command: ClientCommand) -> String? {
        switch command {
        case .rooms, .whois, .certificate: ChatLimits.defaultRoom
        case .kick(_, _, true), .ban(_, _, true), .unban(_, true): ChatLimits.defaultRoom
        default: nil
        }
    }

    /// An account or moderation message: an event line in its room (or a note in the room shown).
    func receivedModeration(_ message: ChatMessage) {
        let time = message.ts ?? unixMilliseconds()
        let target = message.to ?? ""
        let reason = message.text.isEmpty ? "" : " (\(message.text))"
        let room = message.room ?? currentRoomName
        let text: String
        switch message.messageType {
        case .account:
            note(accountNote(message), in: currentRoomName)
            return
        case .topic: text = message.text.isEmpty ? "cleared the topic" : "set the topic: \(message.text)"
        case .kicked: text = message.room == nil ? "kicked \(target) from the server\(reason)" : "kicked \(target)\(reason)"
        case .banned: text = message.room == nil ? "banned \(target) from the server\(reason)" : "banned \(target)\(reason)"
        case .unbanned: text = "lifted the ban of \(target)"
        case .op: text = message.text == "owner" ? "claimed the room" : "made \(target) an operator"
        case .deop: text = "took operator status from \(target)"
        case .mode: text = "set mode \(message.mode ?? "")"
        case .invite:
            note(message.to == nil ? "\(message.sender) invites you to #\(room): /join \(room)" : "invited \(target) to #\(room)",
                 in: currentRoomName)
            return
        case .rooms:
            let rooms = message.rooms ?? []
            note(rooms.isEmpty ? "no public rooms" : "rooms: " + rooms.map(\.summary).joined(separator: ", "), in: currentRoomName)
            return
        case .whois:
            let rooms = (message.rooms ?? []).map { "#" + $0.room }.joined(separator: " ")
            note("\(message.sender): " + (message.account.map { "account \($0)" } ?? "a guest") + ", \(message.text)"
                 + (rooms.isEmpty ? "" : ", in \(rooms)"), in: currentRoomName)
            return
        default:
            return
        }
        let line = ChatLine(timestamp: time, nick: message.sender, text: text, kind: .event)
        if message.room == nil {
            model.append(line, to: currentRoomName)
        } else {
            addEvent(line, room: room, message: message)
        }
    }

    private func accountNote(_ message: ChatMessage) -> String {
        let account = message.account ?? ""
        switch message.text {
        case "registered":
            return "registered the account \(account): you are logged in" + (options.identity != nil ? ", and this device's identity logs you in from now on" : "")
        case "logged-in": return "logged in as \(account)"
        case "password-changed": return "the password of \(account) is changed"
        case "certificate-added": return "this device's identity now logs you in as \(account)"
        case "certificate-removed": return "this device's identity no longer logs you in as \(account)"
        default: return "account \(account): \(message.text)"
        }
    }
}
