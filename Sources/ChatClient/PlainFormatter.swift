import ChatClientKit
import ChatProtocol
import ChatTUI

/// Line mode's output: each event as a timestamp and one line, the lines of a message with line
/// breaks as continuation lines indented under its text. Text from the network is neutralised
/// (``TextNeutralizer``): control characters and escapes become visible, so a message can never
/// move the cursor, change colours or retitle the terminal.
struct PlainFormatter {
    var timestamp: TimestampFormat
    var utcOffsetSeconds: Int
    /// Messages show their number (`[42] `) once the server offers edits (version 1.2).
    var numbers = false

    /// The lines of an event from the server; none for those line mode does not show (typing,
    /// acknowledgements). `now` stamps events without a `ts`.
    func lines(for message: ChatMessage, now: Int64) -> [String] {
        let room = "#" + single(message.room ?? ChatLimits.defaultRoom)
        let sender = single(message.sender)
        let text = message.text
        let replay = message.replay == true ? " (history)" : ""
        let body: (prefix: String, text: String)?
        let (number, reply) = numbering(message, seq: message.seq)
        switch message.messageType {
        case .welcome:
            body = ("", "* connected to \(single(text)) as \(sender)" + (message.account.map { ", logged in as \(single($0))" } ?? ""))
        case .msg:
            if let action = ChatAction.body(of: text) {
                body = ("\(room) \(number)* \(sender) ", reply + action + replay)
            } else {
                body = ("\(room) \(number)<\(sender)> ", reply + text + replay)
            }
        case .dm:
            if let action = ChatAction.body(of: text) {
                body = ("\(number)* \(sender) ", reply + action + " (private)" + replay)
            } else {
                body = ("\(number)*\(sender)* ", reply + text + replay)
            }
        case .joined: body = ("", "\(room) * \(sender) joined\(replay)")
        case .left: body = ("", "\(room) * \(sender) left (\(single(text)))\(replay)")
        case .nick: body = ("", "\(message.room.map { "#" + single($0) + " " } ?? "")* \(sender) is now \(single(text))\(replay)")
        case .error:
            body = ("", "! \(single(message.code ?? "error")): \(single(ErrorExplanation.text(of: message)))")
        case .roster:
            let topic = message.topic.map { $0.isEmpty ? "" : "; topic: \(single($0))" } ?? ""
            let modes = message.modes.map { $0.isEmpty ? "" : "; modes: \($0.map { "+" + single($0) }.joined(separator: " "))" } ?? ""
            let ops = message.ops.map { $0.isEmpty ? "" : "; operators: \($0.map(single).joined(separator: " "))" } ?? ""
            body = ("", "\(room) members: \((message.members ?? []).map(single).joined(separator: " "))\(topic)\(modes)\(ops)")
        case .status: body = ("", "* \(sender) is \(single(text))")
        case .historyEnd: body = ("", message.with.map { "* end of the history with \(single($0))" } ?? "\(room) (end of history)")
        case .typing, .presence, .ack: body = nil
        default:
            body = (alwaysOnLine(message) ?? moderationLine(message)).map { ("", $0) }
                ?? ("", "? \(single(message.type)) \(single(text))")
        }
        guard let body else { return [] }
        let lines = format(prefix: body.prefix, text: body.text, at: message.ts ?? now)
        // `found`: each message found under its header, as it would have been printed.
        return lines + (message.events ?? []).flatMap { self.lines(for: $0, now: now) }
    }

    /// A shared file (PROTOCOL.md section 9) with the short number `/get` takes.
    func fileLines(for message: ChatMessage, number: Int, now: Int64) -> [String] {
        let place = message.room.map { "#" + single($0) + " " } ?? ""
        let privately = message.room == nil ? " with you" : ""
        let replay = message.replay == true ? " (history)" : ""
        let size = FileTransfer.bytes(message.size ?? 0)
        return format(prefix: "", text: "\(place)* \(single(message.sender)) shared \(single(message.text)) (\(size))\(privately) [file \(number)]\(replay)",
                      at: message.ts ?? now)
    }

    /// The echo of our own `msg` or `dm` once the server acknowledged it.
    func ownLines(for sent: ChatMessage, nick: String, at time: Int64, seq: Int64? = nil) -> [String] {
        let me = single(nick)
        let (number, reply) = numbering(sent, seq: seq)
        if sent.messageType == .dm {
            let to = single(sent.to ?? "")
            if let action = ChatAction.body(of: sent.text) { return format(prefix: "\(number)-> *\(to)* * \(me) ", text: reply + action, at: time) }
            return format(prefix: "\(number)-> *\(to)* ", text: reply + sent.text, at: time)
        }
        let room = "#" + single(sent.room ?? ChatLimits.defaultRoom)
        if let action = ChatAction.body(of: sent.text) { return format(prefix: "\(room) \(number)* \(me) ", text: reply + action, at: time) }
        return format(prefix: "\(room) \(number)<\(me)> ", text: reply + sent.text, at: time)
    }

    /// A line of our own (a note, the answer to /who), stamped now.
    func note(_ text: String, at time: Int64) -> [String] {
        format(prefix: "", text: text, at: time)
    }

    /// `time * day changed to 2026-12-08`, printed before the first line of another day.
    func dayLine(at time: Int64) -> [String] {
        note("* day changed to " + TimestampFormat.date.format(time, utcOffsetSeconds: utcOffsetSeconds), at: time)
    }

    /// `time prefix text`, each further line of the text indented to where the text starts.
    func format(prefix: String, text: String, at time: Int64) -> [String] {
        let stamp = timestamp.isEmpty ? "" : timestamp.format(time, utcOffsetSeconds: utcOffsetSeconds) + " "
        let lines = TextNeutralizer.multiLine.neutralize(text).split(separator: "\n", omittingEmptySubsequences: false)
        let head = stamp + prefix
        let indent = String(repeating: " ", count: max(2, DisplayWidth.columns(of: head)))
        return lines.enumerated().map { index, line in (index == 0 ? head : indent) + line }
    }

    func single(_ text: String) -> String { TextNeutralizer.singleLine.neutralize(text) }
}
