import ChatProtocol

/// One human-readable line per event for line mode. Text from the network is neutralised:
/// control characters become visible escapes, so a message can never move the cursor, change
/// colours or retitle the terminal.
enum PlainFormatter {
    static func line(for message: ChatMessage) -> String? {
        let room = "#" + safe(message.room ?? "lobby")
        let sender = safe(message.sender)
        let text = safe(message.text)
        let replay = message.replay == true ? " (history)" : ""
        switch message.type {
        case "welcome": return "* connected to \(text) as \(sender)"
        case "msg": return "\(room) <\(sender)> \(text)\(replay)"
        case "dm": return "*\(sender)* \(text)"
        case "joined": return "\(room) * \(sender) joined\(replay)"
        case "left": return "\(room) * \(sender) left (\(text))\(replay)"
        case "nick": return "\(message.room.map { "#" + safe($0) + " " } ?? "")* \(sender) is now \(text)"
        case "error": return "! \(safe(message.code ?? "error")): \(text)"
        case "roster": return "\(room) members: \((message.members ?? []).map(safe).joined(separator: " "))"
        case "status": return "* \(sender) is \(text)"
        case "typing": return nil
        case "history-end": return "\(room) (end of history)"
        case "ack": return nil
        default: return "? \(safe(message.type)) \(text)"
        }
    }

    /// Replaces C0/C1 controls, DEL and bidi overrides with visible escapes.
    static func safe(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069:
                result += "\\u{\(String(scalar.value, radix: 16))}"
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
