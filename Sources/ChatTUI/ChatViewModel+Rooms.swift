extension ChatViewModel {
    /// Adds a room at the end of the list unless it is there; returns its index. The first room
    /// opened becomes the current one.
    @discardableResult
    public mutating func openRoom(_ name: String) -> Int {
        if let index = roomIndex(named: name) { return index }
        rooms.append(ChatRoom(name: name))
        return rooms.count - 1
    }

    /// The private conversation with `nick` (compared case-insensitively), opened if needed.
    @discardableResult
    public mutating func openQuery(_ nick: String) -> Int {
        if let index = queryIndex(nick) { return index }
        return openRoom(ChatRoom.queryPrefix + nick)
    }

    public func queryIndex(_ nick: String) -> Int? {
        let key = nick.lowercased()
        return rooms.firstIndex { $0.queryNick?.lowercased() == key }
    }

    /// Renames a private conversation when its other side changes nick.
    public mutating func renameQuery(from oldNick: String, to newNick: String) {
        guard let index = queryIndex(oldNick), queryIndex(newNick) == nil || queryIndex(newNick) == index else { return }
        var renamed = ChatRoom(name: ChatRoom.queryPrefix + newNick)
        let old = rooms[index]
        renamed.lines = old.lines
        renamed.unreadCount = old.unreadCount
        renamed.highlightCount = old.highlightCount
        renamed.scrollAnchor = old.scrollAnchor
        renamed.isAwaitingReadMarker = old.isAwaitingReadMarker
        rooms[index] = renamed
    }

    /// Removes a room (after `part`) or a conversation (`/close`); the current room stays the
    /// same room when it can.
    public mutating func closeRoom(_ name: String) {
        guard let index = roomIndex(named: name) else { return }
        rooms.remove(at: index)
        if index < currentRoomIndex || currentRoomIndex >= rooms.count {
            currentRoomIndex = max(0, currentRoomIndex - 1)
        }
        if rooms.indices.contains(currentRoomIndex) { seen(currentRoomIndex) }
    }

    /// Shows the room at `index` (Alt-1 is index 0) and clears its unread counts; the room left
    /// gets its read marker moved to where the person stopped reading. Out-of-range indices are
    /// ignored.
    public mutating func selectRoom(at index: Int) {
        guard rooms.indices.contains(index) else { return }
        if index != currentRoomIndex, rooms.indices.contains(currentRoomIndex) {
            rooms[currentRoomIndex].lines.removeAll { $0.kind == .readMarker }
            rooms[currentRoomIndex].isAwaitingReadMarker = true
        }
        currentRoomIndex = index
        seen(index)
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

    /// Alt-Tab / Alt-A: the next room with highlights, else the next with unread messages,
    /// searching from the current one onwards. False when no room has activity.
    @discardableResult
    public mutating func selectNextRoomWithActivity() -> Bool {
        guard !rooms.isEmpty else { return false }
        let order = (1...rooms.count).map { (currentRoomIndex + $0) % rooms.count }
        guard let index = order.first(where: { rooms[$0].highlightCount > 0 }) ?? order.first(where: { rooms[$0].unreadCount > 0 }),
              index != currentRoomIndex else { return false }
        selectRoom(at: index)
        return true
    }

    private mutating func seen(_ index: Int) {
        rooms[index].unreadCount = 0
        rooms[index].highlightCount = 0
    }
}

extension ChatViewModel {
    /// `/buffer NAME`: the buffer named so (a leading `#` or `@` optional), else the first whose
    /// name contains it; case ignored. Nil when none does.
    public func bufferIndex(matching typed: String) -> Int? {
        let wanted = (typed.hasPrefix("#") ? String(typed.dropFirst()) : typed).lowercased()
        guard !wanted.isEmpty else { return nil }
        let names = rooms.map { $0.name.lowercased() }
        return names.firstIndex { $0 == wanted || $0 == ChatRoom.queryPrefix + wanted }
            ?? names.firstIndex { $0.contains(wanted) }
    }

    /// `/buffer` alone: every buffer with its number and counts, the one shown in brackets:
    /// `buffers: [1:lobby] 2:dev(3) 3:@bob(1,1!)`.
    public func bufferList() -> String {
        "buffers: " + rooms.enumerated().map { index, room in
            var label = "\(index + 1):\(room.name)"
            if room.unreadCount > 0 || room.highlightCount > 0 {
                label += room.highlightCount > 0 ? "(\(room.unreadCount),\(room.highlightCount)!)" : "(\(room.unreadCount))"
            }
            return index == currentRoomIndex ? "[\(label)]" : label
        }.joined(separator: " ")
    }
}
