/// Version 1.2's read markers and counts (PROTOCOL.md sections 13 and 14): the counts a `welcome`
/// gives for rooms and conversations not yet shown, and another device's `read` clearing what it
/// read here.
extension ChatViewModel {
    /// `welcome`'s `unread` and `mentions` for a room or conversation (opened if needed): shown
    /// on the bar as counts of lines that arrived unseen are; not for the buffer shown.
    public mutating func setCounts(unread: Int, mentions: Int, in roomName: String) {
        let index = openRoom(roomName)
        guard index != currentRoomIndex else { return }
        rooms[index].unreadCount = max(0, unread)
        rooms[index].highlightCount = max(0, min(mentions, unread))
    }

    /// Another device of the account read `roomName` up to `seq`: what it counted of others'
    /// messages up to there is no longer unread here.
    public mutating func markRead(upTo seq: Int64, in roomName: String) {
        guard let index = roomIndex(named: roomName) else { return }
        let after = rooms[index].lines.filter { $0.isMessage && !$0.kind.isOwn && ($0.seq ?? .max) > seq }
        rooms[index].unreadCount = min(rooms[index].unreadCount, after.count)
        rooms[index].highlightCount = min(rooms[index].highlightCount, after.filter(\.isHighlight).count)
    }

    /// The seq of the newest message of a buffer (what a `read` says was seen), nil when none has one.
    public func newestSeq(in roomName: String) -> Int64? {
        room(named: roomName)?.lines.last { $0.isMessage && $0.seq != nil }?.seq
    }

    /// Whether a buffer shows the message with `seq` already (a replay that repeats it is not added).
    public func hasMessage(seq: Int64, in roomName: String) -> Bool {
        room(named: roomName)?.lines.contains { $0.isMessage && $0.seq == seq } ?? false
    }
}
