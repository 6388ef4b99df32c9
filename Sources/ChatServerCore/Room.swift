/// The connected members of one room. Rooms with no members are forgotten; their events
/// and seq live on in the history store.
struct Room {
    let name: String
    /// Each member's session by its connection, so a broadcast reaches them without a lookup
    /// per recipient.
    var members: [ClientID: ClientSession] = [:]

    init(name: String) {
        self.name = name
    }
}
