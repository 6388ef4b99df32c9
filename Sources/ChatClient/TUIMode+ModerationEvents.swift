import ChatClientKit
import ChatProtocol
import ChatTUI

/// Moderation and account events in the full-screen client (PROTOCOL.md sections 7 and 8): shown
/// in the room they are about, as IRC clients show them.
extension TUIMode {
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
            listedRooms = rooms.map(\.room)
            note(RoomListing.listing(rooms) { $0 }, in: currentRoomName)
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
