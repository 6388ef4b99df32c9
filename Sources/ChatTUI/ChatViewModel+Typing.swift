extension ChatViewModel {
    /// Records that `nick` types in a room until `expiresAt` (Unix ms; the protocol says 6 s
    /// after the last `start`). A repeated start moves the expiry but keeps the order.
    public mutating func setTyping(_ nick: String, in roomName: String, until expiresAt: Int64) {
        guard let index = roomIndex(named: roomName) else { return }
        let key = nick.lowercased()
        if let typist = rooms[index].typists.firstIndex(where: { $0.nick.lowercased() == key }) {
            rooms[index].typists[typist].expiresAt = expiresAt
        } else {
            rooms[index].typists.append(Typist(nick: nick, expiresAt: expiresAt))
        }
    }

    /// Forgets a typist (on `stop`, or when their message arrives).
    public mutating func stopTyping(_ nick: String, in roomName: String) {
        guard let index = roomIndex(named: roomName) else { return }
        let key = nick.lowercased()
        rooms[index].typists.removeAll { $0.nick.lowercased() == key }
    }

    /// Forgets every typist whose expiry is not after `now`.
    public mutating func removeExpiredTypists(now: Int64) {
        for index in rooms.indices {
            rooms[index].typists.removeAll { $0.expiresAt <= now }
        }
    }

    /// The earliest expiry among all typists, for the caller's timer.
    public var nextTypingExpiry: Int64? {
        rooms.flatMap(\.typists).map(\.expiresAt).min()
    }

    /// "alice is typing…", "alice and bob are typing…", "3 people are typing…", or nil, for the
    /// typists of a room not yet expired at `now`. Nicks are raw: the renderer neutralises.
    public func typingText(in roomIndex: Int, now: Int64) -> String? {
        guard rooms.indices.contains(roomIndex) else { return nil }
        let nicks = rooms[roomIndex].typists.filter { $0.expiresAt > now }.map(\.nick)
        switch nicks.count {
        case 0: return nil
        case 1: return "\(nicks[0]) is typing…"
        case 2: return "\(nicks[0]) and \(nicks[1]) are typing…"
        default: return "\(nicks.count) people are typing…"
        }
    }
}
