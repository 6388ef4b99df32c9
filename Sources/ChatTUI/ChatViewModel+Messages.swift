extension ChatViewModel {
    /// Adds a line at the bottom of a room (opening the room if needed). A message or private
    /// message in a room other than the current one counts as unread.
    public mutating func append(_ line: ChatLine, to roomName: String) {
        let index = openRoom(roomName)
        rooms[index].lines.append(line)
        if index != currentRoomIndex, line.kind == .message || line.kind == .directMessage {
            rooms[index].unreadCount += 1
        }
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
        rooms[index].trimLines(to: maximumLinesPerRoom)
    }

    /// Marks our own line with message id `id` as confirmed or failed (on `ack` or `error`),
    /// taking the server's timestamp when given. Returns false when no line has that id.
    @discardableResult
    public mutating func updateOwnMessage(id: String, kind: ChatLine.Kind, timestamp: Int64? = nil) -> Bool {
        for roomIndex in rooms.indices {
            guard let lineIndex = rooms[roomIndex].lines.lastIndex(where: { $0.id == id }) else { continue }
            rooms[roomIndex].lines[lineIndex].kind = kind
            if let timestamp { rooms[roomIndex].lines[lineIndex].timestamp = timestamp }
            return true
        }
        return false
    }
}
