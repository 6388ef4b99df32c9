import ChatProtocol

/// How the clients print a room of `rooms` and `whois`.
extension RoomListing {
    /// `#dev (3): the topic`.
    public var summary: String {
        "#\(room) (\(members))" + (topic.isEmpty ? "" : ": \(topic)")
    }

    /// `/rooms`: a line saying how many, then each room with its members and topic on a line of
    /// its own (a topic may hold commas); `neutralize` makes a room's text safe to print.
    public static func listing(_ rooms: [RoomListing], neutralize: (String) -> String) -> String {
        guard !rooms.isEmpty else { return "no public rooms" }
        return "\(rooms.count) public room\(rooms.count == 1 ? "" : "s"):" + rooms.map { "\n" + neutralize($0.summary) }.joined()
    }
}
