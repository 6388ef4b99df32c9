import ChatProtocol

/// The messages line mode has printed, by room or conversation, with their numbers (seq): what
/// `/edit`, `/redact`, `/react` and `/reply` may name there (``MessageReferences``). The newest
/// ``limit`` are kept; the full-screen client asks its buffers instead.
public struct SeenMessages: Sendable {
    public static let limit = 4_096
    private var seen: [(target: MessageTarget, message: ShownMessage)] = []

    public init() {}

    /// The messages of `target`, oldest first.
    public func shown(in target: MessageTarget) -> [ShownMessage] {
        let key = target.key
        return seen.filter { $0.target.key == key }.map(\.message)
    }

    /// A message printed (a `msg` or `dm` with its seq, or the `ack` of our own).
    public mutating func record(_ message: ShownMessage, in target: MessageTarget) {
        seen.append((target, message))
        if seen.count > Self.limit { seen.removeFirst(seen.count - Self.limit) }
    }

    /// A `redact` of message `seq` in `target`.
    public mutating func redacted(_ seq: Int64, in target: MessageTarget) {
        let key = target.key
        for index in seen.indices where seen[index].message.seq == seq && seen[index].target.key == key {
            seen[index].message.isRedacted = true
        }
    }

    /// The room or conversation a `msg`, `dm` or change event belongs to, seen by `ownNick`: its
    /// room, or the conversation with the other side (`with`, else `to` or `sender`).
    public static func target(of message: ChatMessage, ownNick: String) -> MessageTarget {
        if let room = message.room ?? (message.messageType == .msg ? ChatLimits.defaultRoom : nil) { return .room(room) }
        let mine = ChatValidation.nickKey(message.sender) == ChatValidation.nickKey(ownNick)
        return .conversation(message.with ?? (mine ? message.to ?? message.sender : message.sender))
    }
}
