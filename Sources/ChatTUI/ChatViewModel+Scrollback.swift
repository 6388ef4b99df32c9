extension ChatViewModel {
    /// Scrolls the current room `rows` rows towards older lines in a pane of `paneRows` rows.
    /// `rowCount` must wrap lines as the renderer does: use ``Renderer/pageUp(_:size:)`` rather
    /// than calling this directly.
    public mutating func scrollUp(rows: Int, paneRows: Int, rowCount: (ChatLine) -> Int) -> ScrollOutcome {
        guard rooms.indices.contains(currentRoomIndex) else { return .reachedOldest }
        return rooms[currentRoomIndex].scrollUp(rows: rows, paneRows: paneRows, rowCount: rowCount)
    }

    /// Scrolls the current room `rows` rows towards newer lines.
    public mutating func scrollDown(rows: Int, rowCount: (ChatLine) -> Int) {
        guard rooms.indices.contains(currentRoomIndex) else { return }
        rooms[currentRoomIndex].scrollDown(rows: rows, rowCount: rowCount)
    }

    /// Follows the newest line of the current room again (and ends a search).
    public mutating func scrollToNewest() {
        guard rooms.indices.contains(currentRoomIndex) else { return }
        rooms[currentRoomIndex].scrollAnchor = nil
        rooms[currentRoomIndex].searchMatch = nil
    }
}

extension ChatViewModel {
    /// The server has nothing older for this room: PgUp at the top asks no more.
    public mutating func markHistoryExhausted(in roomName: String) {
        guard let index = roomIndex(named: roomName) else { return }
        rooms[index].isHistoryExhausted = true
    }
}
