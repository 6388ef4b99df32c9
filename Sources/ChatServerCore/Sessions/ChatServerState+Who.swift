import ChatProtocol

/// The operator's view of who is connected.
extension ChatServerState {
    /// Every client that said hello: nick, status word, rooms (sorted) and account, sorted by nick.
    public func who() -> [(nick: String, status: String, rooms: [String], account: String?)] {
        clients.values
            .filter { $0.phase == .active }
            .sorted { ChatValidation.nickKey($0.nick) < ChatValidation.nickKey($1.nick) }
            .map { (nick: $0.nick, status: $0.status.rawValue, rooms: $0.rooms.sorted(), account: $0.account) }
    }
}
