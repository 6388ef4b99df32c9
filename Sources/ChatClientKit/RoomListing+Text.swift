import ChatProtocol

/// How the clients print a room of `rooms` and `whois`.
extension RoomListing {
    /// `#dev (3): the topic`.
    public var summary: String {
        "#\(room) (\(members))" + (topic.isEmpty ? "" : ": \(topic)")
    }
}
