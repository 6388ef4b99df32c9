/// The connected members of one room. Rooms with no members are forgotten; their events
/// and seq live on in the history store.
struct Room {
    let name: String
    /// Each member's session by its connection, so a broadcast reaches them without a lookup
    /// per recipient.
    var members: [ClientID: ClientSession] = [:]
    /// With a shared log: connections catching up with the room (``CatchUp``), which get its
    /// live events only once their replay is out.
    var catchingUp: [ClientID: ClientSession] = [:]
    /// With a shared log: the room's members on other nodes.
    var remote = RemoteMembers()

    /// Nobody is in the room or on the way in.
    var isDeserted: Bool { members.isEmpty && catchingUp.isEmpty }

    init(name: String) {
        self.name = name
    }
}
