/// The connected members of one room. Rooms with no members are forgotten; their events
/// and seq live on in the history store.
struct Room {
    let name: String
    var members: Set<ClientID> = []

    init(name: String) {
        self.name = name
    }
}
