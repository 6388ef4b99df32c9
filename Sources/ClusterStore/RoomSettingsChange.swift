/// How a room event changes one field of the room's settings hash (``RoomKeys/settings``), in the
/// same atomic step as the event.
public enum RoomSettingsChange: Hashable, Sendable {
    case set(field: String, value: String)
    case delete(field: String)
    /// Sets the field only while it is absent; when it is set already, nothing at all happens (no
    /// event, no member change) and the append answers its value (``RoomAppend/existing``): the
    /// first of two simultaneous `claim`s owns the room, the other is refused.
    case setIfAbsent(field: String, value: String)

    /// ARGV[10...12] of ``RoomEventScript``.
    var arguments: [[UInt8]] {
        switch self {
        case .set(let field, let value): return [Array("set".utf8), Array(field.utf8), Array(value.utf8)]
        case .delete(let field): return [Array("del".utf8), Array(field.utf8), []]
        case .setIfAbsent(let field, let value): return [Array("setnx".utf8), Array(field.utf8), Array(value.utf8)]
        }
    }
}
