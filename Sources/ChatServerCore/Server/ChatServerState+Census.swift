/// Counts for the operator and the metrics page, computed on demand: none of them is on the
/// path of a message.
extension ChatServerState {
    /// Connections that said hello and are served.
    public var activeClientCount: Int {
        var count = 0
        for session in clients.values where session.phase == .active { count += 1 }
        return count
    }

    /// Rooms with at least one member.
    public var roomCount: Int { rooms.count }

    /// Memberships over all rooms: a client in three rooms counts three times.
    public var roomMembershipCount: Int {
        var count = 0
        for room in rooms.values { count += room.members.count }
        return count
    }

    /// Rooms without members still held in memory.
    public var idleRoomCount: Int { idleRooms.count }
}
