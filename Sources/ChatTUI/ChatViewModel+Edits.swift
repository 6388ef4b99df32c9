/// What version 1.2's events do to a message already shown (PROTOCOL.md section 15): an edit
/// replaces its text, a redaction withdraws it, reactions gather under it. Each finds its message
/// by seq among the lines the room keeps; one older than those changes nothing shown (the
/// server's history has it right when it is read again).
extension ChatViewModel {
    /// Characters of the answered message a reply quotes.
    public static let replyExcerptLength = 40

    /// An `edit`: the message's new text, marked edited. False when the message is not shown or
    /// was withdrawn.
    @discardableResult
    public mutating func applyEdit(seq: Int64, text: String, in roomName: String) -> Bool {
        guard let (room, line) = messageLine(seq: seq, in: roomName), !rooms[room].lines[line].isRedacted else { return false }
        rooms[room].lines[line].text = text
        rooms[room].lines[line].isEdited = true
        return true
    }

    /// A `redact`: the message shows as removed, without its reactions.
    @discardableResult
    public mutating func applyRedaction(seq: Int64, in roomName: String) -> Bool {
        guard let (room, line) = messageLine(seq: seq, in: roomName) else { return false }
        rooms[room].lines[line].text = ""
        rooms[room].lines[line].isRedacted = true
        rooms[room].lines[line].reactions = []
        return true
    }

    /// A `react` (`added`) or `unreact` by `nick`: at most one of each value per nick; a value
    /// nobody gives any more goes.
    @discardableResult
    public mutating func applyReaction(_ value: String, by nick: String, added: Bool, seq: Int64, in roomName: String) -> Bool {
        guard let (room, line) = messageLine(seq: seq, in: roomName), !rooms[room].lines[line].isRedacted else { return false }
        let who = nick.lowercased()
        var reactions = rooms[room].lines[line].reactions
        if let index = reactions.firstIndex(where: { $0.value == value }) {
            if added { reactions[index].by.insert(who) } else { reactions[index].by.remove(who) }
            if reactions[index].by.isEmpty { reactions.remove(at: index) }
        } else if added {
            reactions.append(Reaction(value: value, by: [who]))
        }
        rooms[room].lines[line].reactions = reactions
        return true
    }

    /// How a reply to message `seq` quotes it: its author and the start of its text (nil when the
    /// message is not shown).
    public func replyQuote(seq: Int64, in roomName: String) -> ReplyQuote? {
        guard let (room, line) = messageLine(seq: seq, in: roomName) else { return nil }
        let answered = rooms[room].lines[line]
        let text = answered.isRedacted ? ChatLine.removedText : answered.text
        let oneLine = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        let excerpt = oneLine.count > Self.replyExcerptLength ? String(oneLine.prefix(Self.replyExcerptLength - 1)) + "…" : oneLine
        return ReplyQuote(nick: answered.nick, excerpt: excerpt)
    }

    /// The seq of our own newest confirmed message in a room (what `/edit` changes by default).
    public func lastOwnSeq(in roomName: String) -> Int64? {
        guard let room = roomIndex(named: roomName) else { return nil }
        return rooms[room].lines.last { $0.kind == .ownConfirmed && $0.seq != nil && !$0.isRedacted }?.seq
    }

    /// The room and line of a conversation line (not an event, rule or error) with `seq`.
    private func messageLine(seq: Int64, in roomName: String) -> (room: Int, line: Int)? {
        guard let room = roomIndex(named: roomName),
              let line = rooms[room].lines.lastIndex(where: { $0.seq == seq && $0.isMessage }) else { return nil }
        return (room, line)
    }
}

extension ChatLine {
    /// A line of the conversation itself, which edits, redactions and reactions may name.
    public var isMessage: Bool {
        switch kind {
        case .message, .ownPending, .ownConfirmed, .ownFailed, .directMessage, .history: true
        case .event, .error, .readMarker, .dayChange: false
        }
    }
}
