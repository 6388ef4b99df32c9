/// How a room event changes the room's members hash (``RoomKeys/members``), in the same atomic
/// step as the event: a node that reads the hash with the room's seq (``RoomEventLog/members``)
/// and applies the events after that seq knows every member on every node.
public enum RoomMembersChange: Hashable, Sendable {
    /// A member joins (or its record changes): `key` (the nick key) → `record`.
    case add(key: String, record: String)
    /// Members leave (a `left`, a `kicked`, a `banned`).
    case remove([String])
    /// A member renamed.
    case rename(from: String, to: String, record: String)
    /// Members of a lost node leave: only those whose record still starts with `prefix` (a member
    /// that moved to another node meanwhile stays); with none left, the event is not stored.
    case removeHeld(byPrefix: String, keys: [String])

    /// ARGV[13...] of ``RoomEventScript``.
    var arguments: [[UInt8]] {
        switch self {
        case .add(let key, let record): return [Array("+".utf8), Array(key.utf8), Array(record.utf8)]
        case .remove(let keys): return [Array("-".utf8)] + keys.map { Array($0.utf8) }
        case .rename(let from, let to, let record): return [Array("~".utf8), Array(from.utf8), Array(to.utf8), Array(record.utf8)]
        case .removeHeld(let prefix, let keys): return [Array("-?".utf8), Array(prefix.utf8)] + keys.map { Array($0.utf8) }
        }
    }

    var isEmpty: Bool {
        switch self {
        case .remove(let keys), .removeHeld(_, let keys): return keys.isEmpty
        case .add, .rename: return false
        }
    }
}
