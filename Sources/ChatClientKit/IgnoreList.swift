import ChatProtocol

/// The nicks a person ignores (`/ignore NICK`, kept in the configuration as `ignore =`): what
/// they say, share, type, and their joins, parts and renames are not shown; nicks compare as the
/// server makes them unique (case ignored). At most ``limit`` nicks.
public struct IgnoreList: Sendable, Equatable {
    public static let limit = 1_000
    /// As the person typed them, in order.
    public private(set) var nicks: [String] = []

    public init(_ nicks: [String] = []) {
        for nick in nicks { _ = add(nick) }
    }

    public func contains(_ nick: String) -> Bool {
        let key = ChatValidation.nickKey(nick)
        return nicks.contains { ChatValidation.nickKey($0) == key }
    }

    /// False when the nick is listed already or the list is full.
    public mutating func add(_ nick: String) -> Bool {
        guard !contains(nick), nicks.count < Self.limit else { return false }
        nicks.append(nick)
        return true
    }

    /// False when the nick was not listed.
    public mutating func remove(_ nick: String) -> Bool {
        let key = ChatValidation.nickKey(nick)
        guard let index = nicks.firstIndex(where: { ChatValidation.nickKey($0) == key }) else { return false }
        nicks.remove(at: index)
        return true
    }

    /// Whether a message from the server is someone ignored speaking or coming and going.
    public func hides(_ message: ChatMessage) -> Bool {
        guard !nicks.isEmpty else { return false }
        switch message.messageType {
        case .msg, .dm, .typing, .presence, .file, .joined, .left, .nick: return contains(message.sender)
        default: return false
        }
    }
}
