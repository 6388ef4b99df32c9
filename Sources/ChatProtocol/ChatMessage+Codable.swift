/// Codable support for tools and tests. The hot path uses the hand-written encoder and
/// decoder instead; both must produce and accept the same JSON.
extension ChatMessage: Codable {
    enum CodingKeys: String, CodingKey {
        case type, text, sender, room, id, seq, ts, peer, to, since, before, limit, members, code, replay
        case account, password, mode, topic, features, modes, ops, identified, rooms
        case file, size, sha256, offset, stored, old
        case with, ref, read, conversations, edited, redacted, events, away
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            type: try container.decode(String.self, forKey: .type),
            // The original clients always send these two, but other peers may not.
            text: try container.decodeIfPresent(String.self, forKey: .text) ?? "",
            sender: try container.decodeIfPresent(String.self, forKey: .sender) ?? "",
            room: try container.decodeIfPresent(String.self, forKey: .room),
            id: try container.decodeIfPresent(String.self, forKey: .id),
            seq: try container.decodeIfPresent(Int64.self, forKey: .seq),
            ts: try container.decodeIfPresent(Int64.self, forKey: .ts),
            peer: try container.decodeIfPresent(String.self, forKey: .peer),
            to: try container.decodeIfPresent(String.self, forKey: .to),
            since: try container.decodeIfPresent(Int64.self, forKey: .since),
            before: try container.decodeIfPresent(Int64.self, forKey: .before),
            limit: try container.decodeIfPresent(Int.self, forKey: .limit),
            members: try container.decodeIfPresent([String].self, forKey: .members),
            code: try container.decodeIfPresent(String.self, forKey: .code),
            replay: try container.decodeIfPresent(Bool.self, forKey: .replay),
            account: try container.decodeIfPresent(String.self, forKey: .account),
            password: try container.decodeIfPresent(String.self, forKey: .password),
            old: try container.decodeIfPresent(String.self, forKey: .old),
            mode: try container.decodeIfPresent(String.self, forKey: .mode),
            topic: try container.decodeIfPresent(String.self, forKey: .topic),
            features: try container.decodeIfPresent([String].self, forKey: .features),
            modes: try container.decodeIfPresent([String].self, forKey: .modes),
            ops: try container.decodeIfPresent([String].self, forKey: .ops),
            identified: try container.decodeIfPresent([String].self, forKey: .identified),
            rooms: try container.decodeIfPresent([RoomListing].self, forKey: .rooms),
            file: try container.decodeIfPresent(String.self, forKey: .file),
            size: try container.decodeIfPresent(Int64.self, forKey: .size),
            sha256: try container.decodeIfPresent(String.self, forKey: .sha256),
            offset: try container.decodeIfPresent(Int64.self, forKey: .offset),
            stored: try container.decodeIfPresent(Bool.self, forKey: .stored),
            with: try container.decodeIfPresent(String.self, forKey: .with),
            ref: try container.decodeIfPresent(Int64.self, forKey: .ref),
            read: try container.decodeIfPresent(Int64.self, forKey: .read),
            conversations: try container.decodeIfPresent([ConversationListing].self, forKey: .conversations),
            edited: try container.decodeIfPresent(Int64.self, forKey: .edited),
            redacted: try container.decodeIfPresent(Bool.self, forKey: .redacted),
            events: try container.decodeIfPresent([ChatMessage].self, forKey: .events),
            away: try container.decodeIfPresent(String.self, forKey: .away)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        // Always written, so a peer that only knows {text, type, sender} decodes everything.
        try container.encode(type, forKey: .type)
        try container.encode(text, forKey: .text)
        try container.encode(sender, forKey: .sender)
        try container.encodeIfPresent(room, forKey: .room)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encodeIfPresent(seq, forKey: .seq)
        try container.encodeIfPresent(ts, forKey: .ts)
        try container.encodeIfPresent(peer, forKey: .peer)
        try container.encodeIfPresent(to, forKey: .to)
        try container.encodeIfPresent(since, forKey: .since)
        try container.encodeIfPresent(before, forKey: .before)
        try container.encodeIfPresent(limit, forKey: .limit)
        try container.encodeIfPresent(members, forKey: .members)
        try container.encodeIfPresent(code, forKey: .code)
        try container.encodeIfPresent(replay, forKey: .replay)
        try container.encodeIfPresent(account, forKey: .account)
        try container.encodeIfPresent(password, forKey: .password)
        try container.encodeIfPresent(old, forKey: .old)
        try container.encodeIfPresent(mode, forKey: .mode)
        try container.encodeIfPresent(topic, forKey: .topic)
        try container.encodeIfPresent(features, forKey: .features)
        try container.encodeIfPresent(modes, forKey: .modes)
        try container.encodeIfPresent(ops, forKey: .ops)
        try container.encodeIfPresent(identified, forKey: .identified)
        try container.encodeIfPresent(rooms, forKey: .rooms)
        try container.encodeIfPresent(file, forKey: .file)
        try container.encodeIfPresent(size, forKey: .size)
        try container.encodeIfPresent(sha256, forKey: .sha256)
        try container.encodeIfPresent(offset, forKey: .offset)
        try container.encodeIfPresent(stored, forKey: .stored)
        try container.encodeIfPresent(with, forKey: .with)
        try container.encodeIfPresent(ref, forKey: .ref)
        try container.encodeIfPresent(read, forKey: .read)
        try container.encodeIfPresent(conversations, forKey: .conversations)
        try container.encodeIfPresent(edited, forKey: .edited)
        try container.encodeIfPresent(redacted, forKey: .redacted)
        try container.encodeIfPresent(events, forKey: .events)
        try container.encodeIfPresent(away, forKey: .away)
    }
}
