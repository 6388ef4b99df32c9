/// The `rooms` field of `rooms` and `whois` (PROTOCOL.md section 8): an array of
/// `{"room":R,"members":N,"topic":T}` objects.
extension JSONParser {
    /// Every element must be an object whose known members have their JSON type (`room` and
    /// `topic` strings, `members` an integer); unknown members are skipped, missing ones take
    /// their empty value. One element of the wrong shape makes the whole field the wrong type.
    mutating func readRoomListings(depth: Int) throws(ChatDecodeError) -> JSONFieldValue<[RoomListing]> {
        try readArray(depth: depth) { (parser) throws(ChatDecodeError) in
            guard parser.current == ASCII.openBrace else { return nil }
            return try parser.readRoomListing(depth: depth + 1)
        }
    }

    /// One listing object; nil when a known member has the wrong type.
    private mutating func readRoomListing(depth: Int) throws(ChatDecodeError) -> RoomListing? {
        var listing = RoomListing(room: "", members: 0)
        var wellFormed = true
        try forEachMember(depth: depth) { (parser, key) throws(ChatDecodeError) in
            let name = parser.string(key)
            switch name {
            case "room", "topic":
                let (value, isBad) = try parser.readString(depth: depth + 1).resolved
                if isBad { wellFormed = false }
                if name == "room" { listing.room = value ?? "" } else { listing.topic = value ?? "" }
            case "members":
                let (value, isBad) = try parser.readInteger(depth: depth + 1).resolved
                let count = value.flatMap { Int(exactly: $0) }
                if isBad || (value != nil && count == nil) { wellFormed = false }
                listing.members = count ?? 0
            default:
                try parser.skipValue(depth: depth + 1)
            }
        }
        return wellFormed ? listing : nil
    }
}
