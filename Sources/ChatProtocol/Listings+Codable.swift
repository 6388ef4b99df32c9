/// Codable support of the list elements, for tools and tests (the hot path has its own writer and
/// parser): the same flat objects as on the wire.
private enum ListingKeys: String, CodingKey {
    case room, members, topic, with, seq, read, unread, mentions
}

extension ReadPosition {
    fileprivate init?(from container: KeyedDecodingContainer<ListingKeys>) throws {
        let seq = try container.decodeIfPresent(Int64.self, forKey: .seq)
        let read = try container.decodeIfPresent(Int64.self, forKey: .read)
        let unread = try container.decodeIfPresent(Int.self, forKey: .unread)
        let mentions = try container.decodeIfPresent(Int.self, forKey: .mentions)
        guard seq != nil || read != nil || unread != nil || mentions != nil else { return nil }
        self.init(seq: seq ?? 0, read: read ?? 0, unread: unread ?? 0, mentions: mentions ?? 0)
    }

    fileprivate func encode(to container: inout KeyedEncodingContainer<ListingKeys>) throws {
        try container.encode(seq, forKey: .seq)
        try container.encode(read, forKey: .read)
        try container.encode(unread, forKey: .unread)
        try container.encode(mentions, forKey: .mentions)
    }
}

extension RoomListing: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ListingKeys.self)
        self.init(room: try container.decodeIfPresent(String.self, forKey: .room) ?? "",
                  members: try container.decodeIfPresent(Int.self, forKey: .members) ?? 0,
                  topic: try container.decodeIfPresent(String.self, forKey: .topic) ?? "")
        position = try ReadPosition(from: container)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ListingKeys.self)
        try container.encode(room, forKey: .room)
        if let position {
            try position.encode(to: &container)
        } else {
            try container.encode(members, forKey: .members)
            try container.encode(topic, forKey: .topic)
        }
    }
}

extension ConversationListing: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ListingKeys.self)
        self.init(with: try container.decodeIfPresent(String.self, forKey: .with) ?? "",
                  position: try ReadPosition(from: container) ?? ReadPosition(seq: 0, read: 0, unread: 0, mentions: 0))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ListingKeys.self)
        try container.encode(with, forKey: .with)
        try position.encode(to: &container)
    }
}
