import ChatProtocol

/// One change to what the account store keeps about rooms and server bans. `room` nil in a ban
/// means the whole server.
public enum PolicyChange: Sendable, Equatable {
    case owner(room: String, account: String)
    case topic(room: String, RoomTopic?)
    case mode(room: String, RoomMode, on: Bool)
    case operatorAdded(room: String, account: String)
    case operatorRemoved(room: String, account: String)
    case banAdded(room: String?, Ban)
    case banRemoved(room: String?, label: String)
    case inviteAdded(room: String, Invitee)

    /// The room it changes; nil for a server ban.
    public var room: String? {
        switch self {
        case .owner(let room, _), .topic(let room, _), .mode(let room, _, _), .operatorAdded(let room, _),
             .operatorRemoved(let room, _), .inviteAdded(let room, _):
            room
        case .banAdded(let room, _), .banRemoved(let room, _):
            room
        }
    }
}
