/// The list fields of version 1.1 and 1.2: `rooms` of `rooms` and `whois` (PROTOCOL.md section 8),
/// `{"room":R,"members":N,"topic":T}` objects; `rooms` of `welcome` (section 14),
/// `{"room":R,"seq":S,"read":R,"unread":U,"mentions":M}`; and `welcome`'s `conversations`,
/// `{"with":A,"seq":S,"read":R,"unread":U,"mentions":M}`.
///
/// Every element must be an object whose known members have their JSON type (names strings,
/// counts and seqs integers); unknown members are skipped, missing ones take their empty value.
/// One element of the wrong shape makes the whole field the wrong type.
extension JSONParser {
    mutating func readRoomListings(depth: Int) throws(ChatDecodeError) -> JSONFieldValue<[RoomListing]> {
        try readArray(depth: depth) { (parser) throws(ChatDecodeError) in
            guard parser.current == ASCII.openBrace else { return nil }
            guard let listing = try parser.readListing(depth: depth + 1) else { return nil }
            var room = RoomListing(room: listing.name, members: listing.members, topic: listing.topic)
            room.position = listing.position
            return room
        }
    }

    mutating func readConversationListings(depth: Int) throws(ChatDecodeError) -> JSONFieldValue<[ConversationListing]> {
        try readArray(depth: depth) { (parser) throws(ChatDecodeError) in
            guard parser.current == ASCII.openBrace else { return nil }
            guard let listing = try parser.readListing(depth: depth + 1) else { return nil }
            return ConversationListing(with: listing.name,
                                       position: listing.position ?? ReadPosition(seq: 0, read: 0, unread: 0, mentions: 0))
        }
    }

    /// One listing object of either list; nil when a known member has the wrong type.
    private mutating func readListing(depth: Int) throws(ChatDecodeError) -> ParsedListing? {
        var listing = ParsedListing()
        var wellFormed = true
        try forEachMember(depth: depth) { (parser, key) throws(ChatDecodeError) in
            let name = parser.string(key)
            switch name {
            case "room", "with", "topic":
                let (value, isBad) = try parser.readString(depth: depth + 1).resolved
                if isBad { wellFormed = false }
                if name == "topic" { listing.topic = value ?? "" } else { listing.name = value ?? "" }
            case "members", "unread", "mentions":
                let (value, isBad) = try parser.readInteger(depth: depth + 1).resolved
                let count = value.flatMap { Int(exactly: $0) }
                if isBad || (value != nil && count == nil) { wellFormed = false }
                switch name {
                case "members": listing.members = count ?? 0
                case "unread": listing.unread = count
                default: listing.mentions = count
                }
            case "seq", "read":
                let (value, isBad) = try parser.readInteger(depth: depth + 1).resolved
                if isBad { wellFormed = false }
                if name == "seq" { listing.seq = value } else { listing.read = value }
            default:
                try parser.skipValue(depth: depth + 1)
            }
        }
        return wellFormed ? listing : nil
    }
}

/// What one listing object held, before it is made a ``RoomListing`` or a ``ConversationListing``.
private struct ParsedListing {
    /// `room` or `with`.
    var name = ""
    var members = 0
    var topic = ""
    var seq: Int64?
    var read: Int64?
    var unread: Int?
    var mentions: Int?

    /// Set when any of the position's members was there.
    var position: ReadPosition? {
        guard seq != nil || read != nil || unread != nil || mentions != nil else { return nil }
        return ReadPosition(seq: seq ?? 0, read: read ?? 0, unread: unread ?? 0, mentions: mentions ?? 0)
    }
}
