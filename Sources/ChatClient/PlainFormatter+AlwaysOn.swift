import ChatClientKit
import ChatProtocol

/// Line mode's lines for version 1.2's events (PROTOCOL.md sections 13-15): changes to a message
/// name it by its number in brackets (`[42]`, what `/edit 42` takes), as messages show it once the
/// server offers edits.
extension PlainFormatter {
    /// The line of a 1.2 event, or nil for another type.
    func alwaysOnLine(_ message: ChatMessage) -> String? {
        let sender = single(message.sender)
        let replay = message.replay == true ? " (history)" : ""
        // In a room `#room `; in a private conversation nothing before and ` (private)` after.
        let place = message.room.map { "#" + single($0) + " " } ?? ""
        let privately = message.room == nil && message.messageType != .read && message.messageType != .found ? " (private)" : ""
        let ref = message.ref.map { "[\($0)]" } ?? "[?]"
        switch message.messageType {
        case .edit:
            return "\(place)* \(sender) edited \(ref)\(privately): \(single(message.text))\(replay)"
        case .redact:
            return "\(place)* \(sender) removed \(ref)\(privately)" + (message.text.isEmpty ? "" : " (\(single(message.text)))") + replay
        case .react:
            return "\(place)* \(sender) reacted \(single(message.text)) to \(ref)\(privately)\(replay)"
        case .unreact:
            return "\(place)* \(sender) took back \(single(message.text)) from \(ref)\(privately)\(replay)"
        case .read:
            let buffer = message.room.map { "#" + single($0) } ?? single(message.with ?? "")
            return "* \(buffer) read up to [\(message.read ?? 0)] on another device"
        case .away:
            return "* \(sender) is away" + (message.text.isEmpty ? "" : ": \(single(message.text))")
        case .found:
            let buffer = message.room.map { "#" + single($0) } ?? single(message.with ?? "")
            let count = message.events?.count ?? 0
            return "* \(count) found in \(buffer) for '\(single(message.text))'" + (count == 0 ? "" : ", newest first:")
        default:
            return nil
        }
    }

    /// `[42] ` before a message's nick when numbers are shown, and `(re [41]) ` before the text
    /// of a reply.
    func numbering(_ message: ChatMessage, seq: Int64?) -> (number: String, reply: String) {
        (numbers ? seq.map { "[\($0)] " } ?? "" : "", message.ref.map { "(re [\($0)]) " } ?? "")
    }
}
