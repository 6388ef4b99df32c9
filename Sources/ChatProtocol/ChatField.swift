/// The JSON keys ``ChatMessage`` knows. The raw value orders them for reporting: when
/// several fields are bad, the error names the first in this order, whatever the key order
/// on the wire, so the same message always gets the same error.
enum ChatField: Int, CaseIterable {
    case type, text, sender, room, id, seq, ts, peer, to, since, before, limit, members, code, replay
    // Version 1.1 (PROTOCOL.md sections 7 and 8).
    case account, password, mode, topic, features, modes, ops, identified, rooms
    // Version 1.1, files (section 9).
    case file, size, sha256, offset
    // docs/PROTOCOL.md section 10: an `unavailable` that is known not to have been stored.
    case stored
    // Issue 23: the current password of a `password` request.
    case old
    // Version 1.2 (PROTOCOL.md sections 13-17): conversations, read markers, edits and the rest.
    case with, ref, read, conversations, edited, redacted, events, away

    /// The key as written on the wire.
    var name: String { wireName.description }

    /// The key as a literal, so it can be compared with input bytes without creating a String.
    private var wireName: StaticString {
        switch self {
        case .type: "type"
        case .text: "text"
        case .sender: "sender"
        case .room: "room"
        case .id: "id"
        case .seq: "seq"
        case .ts: "ts"
        case .peer: "peer"
        case .to: "to"
        case .since: "since"
        case .before: "before"
        case .limit: "limit"
        case .members: "members"
        case .code: "code"
        case .replay: "replay"
        case .account: "account"
        case .password: "password"
        case .mode: "mode"
        case .topic: "topic"
        case .features: "features"
        case .modes: "modes"
        case .ops: "ops"
        case .identified: "identified"
        case .rooms: "rooms"
        case .file: "file"
        case .size: "size"
        case .sha256: "sha256"
        case .offset: "offset"
        case .stored: "stored"
        case .old: "old"
        case .with: "with"
        case .ref: "ref"
        case .read: "read"
        case .conversations: "conversations"
        case .edited: "edited"
        case .redacted: "redacted"
        case .events: "events"
        case .away: "away"
        }
    }

    /// One bit per field, for a cheap set of bad fields.
    var bit: UInt64 { 1 << UInt64(rawValue) }

    /// The field named by a key's UTF-8, or nil for an unknown key. Compares bytes, so
    /// decoding a message allocates no String for its keys.
    init?(key: UnsafeRawBufferPointer) {
        // Switching on the first byte and the length leaves one candidate to compare.
        guard let first = key.first else { return nil }
        let candidate: ChatField
        switch (first, key.count) {
        case (ASCII.lowerT, 4): candidate = key[1] == 0x79 ? .type : .text  // "type" / "text"
        case (ASCII.lowerS, 6): candidate = key[1] == 0x65 ? .sender : key[1] == 0x68 ? .sha256 : .stored  // "sender" / "sha256" / "stored"
        case (ASCII.lowerR, 4): candidate = key[1] == 0x6F ? .room : .read  // "room" / "read"
        case (ASCII.lowerI, 2): candidate = .id
        case (ASCII.lowerS, 3): candidate = .seq
        case (ASCII.lowerT, 2): candidate = key[1] == 0x73 ? .ts : .to  // "ts" / "to"
        case (ASCII.lowerP, 4): candidate = .peer
        case (ASCII.lowerS, 5): candidate = .since
        case (ASCII.lowerB, 6): candidate = .before
        case (ASCII.lowerL, 5): candidate = .limit
        case (ASCII.lowerM, 7): candidate = .members
        case (ASCII.lowerC, 4): candidate = .code
        case (ASCII.lowerR, 6): candidate = .replay
        case (ASCII.lowerA, 7): candidate = .account
        case (ASCII.lowerP, 8): candidate = .password
        case (ASCII.lowerM, 4): candidate = .mode
        case (ASCII.lowerT, 5): candidate = .topic
        case (ASCII.lowerF, 8): candidate = .features
        case (ASCII.lowerM, 5): candidate = .modes
        case (ASCII.lowerO, 3): candidate = key[1] == 0x70 ? .ops : .old  // "ops" / "old"
        case (ASCII.lowerI, 10): candidate = .identified
        case (ASCII.lowerR, 5): candidate = .rooms
        case (ASCII.lowerF, 4): candidate = .file
        case (ASCII.lowerS, 4): candidate = .size
        case (ASCII.lowerO, 6): candidate = .offset
        case (ASCII.lowerW, 4): candidate = .with
        case (ASCII.lowerR, 3): candidate = .ref
        case (ASCII.lowerC, 13): candidate = .conversations
        case (ASCII.lowerE, 6): candidate = key[1] == 0x64 ? .edited : .events  // "edited" / "events"
        case (ASCII.lowerR, 8): candidate = .redacted
        case (ASCII.lowerA, 4): candidate = .away
        default: return nil
        }
        let wireName = candidate.wireName
        guard wireName.utf8CodeUnitCount == key.count else { return nil }
        for offset in 1..<key.count where key[offset] != wireName.utf8Start[offset] {
            return nil
        }
        self = candidate
    }
}
