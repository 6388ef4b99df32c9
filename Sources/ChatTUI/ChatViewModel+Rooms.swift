extension ChatViewModel {
    /// Adds a room at the end of the list unless it is there; returns its index. The first room
    /// opened becomes the current one.
    @discardableResult
    public mutating func openRoom(_ name: String) -> Int {
        if let index = roomIndex(named: name) { return index }
        rooms.append(ChatRoom(name: name))
        return rooms.count - 1
    }

    /// Removes a room (after `part`); the current room stays the same room when it can.
    public mutating func closeRoom(_ name: String) {
        guard let index = roomIndex(named: name) else { return }
        rooms.remove(at: index)
        if index < currentRoomIndex || currentRoomIndex >= rooms.count {
            currentRoomIndex = max(0, currentRoomIndex - 1)
        }
        if rooms.indices.contains(currentRoomIndex) { rooms[currentRoomIndex].unreadCount = 0 }
    }

    /// Shows the room at `index` (Alt-1 is index 0) and clears its unread count. Out-of-range
    /// indices are ignored.
    public mutating func selectRoom(at index: Int) {
        guard rooms.indices.contains(index) else { return }
        currentRoomIndex = index
        rooms[index].unreadCount = 0
    }

    public mutating func selectRoom(named name: String) {
        if let index = roomIndex(named: name) { selectRoom(at: index) }
    }

    /// Shows the next room, wrapping around.
    public mutating func selectNextRoom() {
        guard !rooms.isEmpty else { return }
        selectRoom(at: (currentRoomIndex + 1) % rooms.count)
    }

    /// Shows the previous room, wrapping around.
    public mutating func selectPreviousRoom() {
        guard !rooms.isEmpty else { return }
        selectRoom(at: (currentRoomIndex + rooms.count - 1) % rooms.count)
    }
}
