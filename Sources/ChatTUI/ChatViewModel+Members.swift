extension ChatViewModel {
    /// Replaces a room's member list (with the session's, which follows the server's roster).
    public mutating func setMembers(_ nicks: [String], in roomName: String) {
        let index = openRoom(roomName)
        var seen = Set<String>()
        rooms[index].members = nicks.filter { seen.insert($0.lowercased()).inserted }
    }

    /// What the roster says besides the members (PROTOCOL.md section 8): topic, modes, the
    /// operators present and the members logged in.
    public mutating func setRoomInfo(topic: String?, modes: [String], operators: [String], identified: [String], in roomName: String) {
        let index = openRoom(roomName)
        rooms[index].topic = topic.flatMap { $0.isEmpty ? nil : $0 }
        rooms[index].modes = modes
        rooms[index].operators = Set(operators.map { $0.lowercased() })
        rooms[index].identified = Set(identified.map { $0.lowercased() })
    }

    public mutating func addMember(_ nick: String, to roomName: String) {
        let index = openRoom(roomName)
        if rooms[index].memberIndex(of: nick) == nil { rooms[index].members.append(nick) }
    }

    /// Removes a member (on `left`) and forgets them as a typist there.
    public mutating func removeMember(_ nick: String, from roomName: String) {
        guard let index = roomIndex(named: roomName) else { return }
        if let memberIndex = rooms[index].memberIndex(of: nick) { rooms[index].members.remove(at: memberIndex) }
        stopTyping(nick, in: roomName)
    }

    /// Applies a nick change everywhere: member lists, typists, statuses and our own nick.
    public mutating func renameUser(from oldNick: String, to newNick: String) {
        let oldKey = oldNick.lowercased()
        for index in rooms.indices {
            if let memberIndex = rooms[index].memberIndex(of: oldNick) {
                // Listed already under the new nick (the roster came first): one entry, not two.
                if let existing = rooms[index].memberIndex(of: newNick), existing != memberIndex {
                    rooms[index].members.remove(at: memberIndex)
                } else {
                    rooms[index].members[memberIndex] = newNick
                }
            }
            for typistIndex in rooms[index].typists.indices where rooms[index].typists[typistIndex].nick.lowercased() == oldKey {
                rooms[index].typists[typistIndex].nick = newNick
            }
        }
        if let status = statuses.removeValue(forKey: oldKey) { statuses[newNick.lowercased()] = status }
        if nick.lowercased() == oldKey { nick = newNick }
    }

    /// Records a `status`; nil (for `offline`) forgets it.
    public mutating func setStatus(_ status: MemberStatus?, of nick: String) {
        statuses[nick.lowercased()] = status
    }

    public func status(of nick: String) -> MemberStatus {
        statuses[nick.lowercased()] ?? .online
    }
}
