import ChatClientKit
import ChatProtocol

/// Line mode's lines for accounts and moderation (PROTOCOL.md sections 7 and 8).
extension PlainFormatter {
    /// The line of an account or moderation message, or nil for a type it does not know.
    func moderationLine(_ message: ChatMessage) -> String? {
        let roomName = message.room.map { "#" + single($0) } ?? ""
        let room = roomName.isEmpty ? "" : roomName + " "
        let sender = single(message.sender)
        let target = single(message.to ?? "")
        let reason = message.text.isEmpty ? "" : " (\(single(message.text)))"
        let replay = message.replay == true ? " (history)" : ""
        switch message.messageType {
        case .account:
            let account = single(message.account ?? "")
            switch message.text {
            case "registered": return "* registered the account \(account); you are logged in"
            case "logged-in": return "* logged in as \(account)"
            case "password-changed": return "* the password of \(account) is changed"
            case "certificate-added": return "* this device's certificate now logs you in as \(account)"
            case "certificate-removed": return "* this device's certificate no longer logs you in as \(account)"
            default: return "* account \(account): \(single(message.text))"
            }
        case .topic:
            return message.text.isEmpty ? "\(room)* \(sender) cleared the topic\(replay)" : "\(room)* \(sender) set the topic: \(single(message.text))\(replay)"
        case .kicked:
            return message.room == nil ? "* \(target) was kicked from the server by \(sender)\(reason)"
                : "\(room)* \(target) was kicked by \(sender)\(reason)\(replay)"
        case .banned:
            return message.room == nil ? "* \(target) was banned from the server by \(sender)\(reason)"
                : "\(room)* \(target) was banned by \(sender)\(reason)\(replay)"
        case .unbanned:
            return message.room == nil ? "* \(sender) lifted the server ban of \(target)" : "\(room)* \(sender) lifted the ban of \(target)\(replay)"
        case .op:
            return message.text == "owner" ? "\(room)* \(sender) claimed the room\(replay)" : "\(room)* \(sender) made \(target) an operator\(replay)"
        case .deop:
            return "\(room)* \(sender) took operator status from \(target)\(replay)"
        case .mode:
            return "\(room)* \(sender) set mode \(single(message.mode ?? ""))\(replay)"
        case .invite:
            return message.to == nil ? "* \(sender) invites you to \(roomName)" : "* invited \(target) to \(roomName)"
        case .rooms:
            let rooms = message.rooms ?? []
            return "* " + RoomListing.listing(rooms, neutralize: single)
        case .whois:
            let account = message.account.map { "account \(single($0))" } ?? "a guest"
            let rooms = (message.rooms ?? []).map { "#" + single($0.room) }.joined(separator: " ")
            return "* \(sender): \(account), \(single(message.text))" + (rooms.isEmpty ? "" : ", in \(rooms)")
        default:
            return nil
        }
    }
}
