/// A Redis Cluster redirection in an error reply: `MOVED 3999 127.0.0.1:6381` (the slot lives
/// there now: update the map) or `ASK 3999 127.0.0.1:6381` (this one command, during a
/// migration, after ASKING).
public enum RedisRedirect: Hashable, Sendable {
    case moved(slot: Int, to: RedisServerAddress)
    case ask(slot: Int, to: RedisServerAddress)

    public init?(error text: String) {
        let words = text.split(separator: " ")
        guard words.count == 3, let slot = Int(words[1]), (0..<RedisKeySlot.count).contains(slot),
              let address = RedisServerAddress(words[2]) else { return nil }
        switch words[0] {
        case "MOVED": self = .moved(slot: slot, to: address)
        case "ASK": self = .ask(slot: slot, to: address)
        default: return nil
        }
    }

    public var target: RedisServerAddress {
        switch self {
        case .moved(_, let to), .ask(_, let to): return to
        }
    }
}
