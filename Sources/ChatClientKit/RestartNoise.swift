import ChatProtocol

/// The churn a server restart leaves in every room: each member `left (shutdown)` as the server
/// stopped and `joined` again as their client came back, a pair of lines per member per room per
/// restart (issue 24, defect 15). The full-screen client hides such a pair: a `left` with the
/// reason `shutdown`, and the next `joined` of the same nick in the same room (replayed or live).
/// Someone who does not come back is still gone from the member list. At most ``limit`` nicks
/// are remembered as away by a restart.
public struct RestartNoise: Sendable {
    public static let limit = 10_000
    /// Nick keys (lower-cased) by room, that left at a shutdown and have not joined again.
    private var departed: [String: Set<String>] = [:]
    private var count = 0

    public init() {}

    /// Whether a room event is restart churn, not to be shown.
    public mutating func hides(_ message: ChatMessage) -> Bool {
        guard let room = message.room else { return false }
        let key = ChatValidation.nickKey(message.sender)
        switch message.messageType {
        case .left where message.text == "shutdown":
            guard count < Self.limit else { return true }
            if departed[room, default: []].insert(key).inserted { count += 1 }
            return true
        case .joined:
            guard departed[room]?.remove(key) != nil else { return false }
            count -= 1
            return true
        default:
            return false
        }
    }
}
