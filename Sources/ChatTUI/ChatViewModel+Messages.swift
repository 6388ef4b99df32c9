extension ChatViewModel {
    /// Adds a line at the bottom of a room (opening the room if needed). Another person's message
    /// in a room other than the current one counts as unread (and as a highlight when it is one),
    /// and the first one after the person left the room gets the read marker above it.
    public mutating func append(_ line: ChatLine, to roomName: String) {
        let index = openRoom(roomName)
        if index != currentRoomIndex, line.isUnreadable {
            if rooms[index].isAwaitingReadMarker {
                rooms[index].isAwaitingReadMarker = false
                rooms[index].lines.append(ChatLine(timestamp: line.timestamp, nick: "", text: "", kind: .readMarker))
            }
            rooms[index].unreadCount += 1
            if line.isHighlight { rooms[index].highlightCount += 1 }
        }
        if needsDayChange(before: line, in: index) { rooms[index].lines.append(dayChange(to: line)) }
        rooms[index].lines.append(line)
        rooms[index].trimLines(to: maximumLinesPerRoom)
    }

    /// Adds older lines (a `history` answer, oldest first) above the existing ones. A scrolled
    /// view stays on the lines it showed.
    public mutating func prependHistory(_ older: [ChatLine], to roomName: String) {
        guard !older.isEmpty else { return }
        let index = openRoom(roomName)
        rooms[index].lines.insert(contentsOf: older, at: 0)
        if let anchor = rooms[index].scrollAnchor {
            rooms[index].scrollAnchor = ScrollAnchor(lineIndex: anchor.lineIndex + older.count,
                                                     hiddenRows: anchor.hiddenRows)
        }
        if let match = rooms[index].searchMatch {
            rooms[index].searchMatch = (match.lineIndex + older.count, match.term)
        }
        placeDayChanges(in: index, ruleOnTop: true)
        rooms[index].trimLines(to: maximumLinesPerRoom)
    }

    /// Marks our own line with message id `id` as confirmed or failed (on `ack` or `error`),
    /// taking the server's timestamp and seq when given. Returns false when no line has that id.
    @discardableResult
    public mutating func updateOwnMessage(id: String, kind: ChatLine.Kind, timestamp: Int64? = nil, seq: Int64? = nil) -> Bool {
        for roomIndex in rooms.indices {
            guard let lineIndex = rooms[roomIndex].lines.lastIndex(where: { $0.id == id }) else { continue }
            rooms[roomIndex].lines[lineIndex].kind = kind
            if let timestamp { rooms[roomIndex].lines[lineIndex].timestamp = timestamp }
            if let seq { rooms[roomIndex].lines[lineIndex].seq = seq }
            return true
        }
        return false
    }

    /// `/clear`: forgets the lines shown in a room (the server still has them: PgUp at the top
    /// brings them back).
    public mutating func clearLines(in roomName: String) {
        guard let index = roomIndex(named: roomName) else { return }
        rooms[index].lines.removeAll()
        rooms[index].scrollAnchor = nil
        rooms[index].searchMatch = nil
        rooms[index].isHistoryExhausted = false
    }

    /// Unread lines and highlights in every room but the current one, for the terminal title.
    public var totalHighlights: Int {
        rooms.enumerated().filter { $0.offset != currentRoomIndex }.reduce(0) { $0 + $1.element.highlightCount }
    }
}

extension ChatViewModel {
    /// A replayed line (a join's replay, what a reconnect missed): after the last line that is not
    /// later, so it reads in time order before the notes of the reconnect that brought it. A
    /// scrolled view stays on the lines it showed.
    public mutating func insertInTimeOrder(_ line: ChatLine, to roomName: String) {
        let index = openRoom(roomName)
        let lines = rooms[index].lines
        var position = lines.count
        while position > 0, lines[position - 1].timestamp > line.timestamp { position -= 1 }
        guard position < lines.count else { return append(line, to: roomName) }
        rooms[index].lines.insert(line, at: position)
        if let anchor = rooms[index].scrollAnchor, anchor.lineIndex >= position {
            rooms[index].scrollAnchor = ScrollAnchor(lineIndex: anchor.lineIndex + 1, hiddenRows: anchor.hiddenRows)
        }
        if let match = rooms[index].searchMatch, match.lineIndex >= position {
            rooms[index].searchMatch = (match.lineIndex + 1, match.term)
        }
        placeDayChanges(in: index, ruleOnTop: false)
        rooms[index].trimLines(to: maximumLinesPerRoom)
    }
}
