import ChatProtocol

/// A room message stored twice after a server crash: a single server shows a message to the room
/// when its seq is assigned and acknowledges it once it is on disk (docs/PROTOCOL.md, "One
/// server's room log"), so a `kill -9` between the two leaves members having seen a message whose
/// author never got the ack; the author sends it again with the same id, and the restarted server
/// stores it under a new seq. chat-client shows it once: a `msg` with the room, sender and id of
/// one already shown under another seq is a repeat. (A replay of the same seq is not: what to do
/// with replays is the caller's.) The last ``capacity`` messages are remembered.
public struct RepeatedMessages: Sendable {
    public static let capacity = 4_096

    private struct Key: Hashable, Sendable {
        var room: String
        var sender: String
        var id: String
    }

    private var seqs: [Key: Int64] = [:]
    private var order: [Key] = []
    private var oldest = 0

    public init() {}

    /// Whether `message` repeats a message already seen under another seq; a message seen for the
    /// first time is remembered.
    public mutating func isRepeat(_ message: ChatMessage) -> Bool {
        guard message.messageType == .msg, let id = message.id, let seq = message.seq else { return false }
        let key = Key(room: message.roomOrDefault, sender: ChatValidation.nickKey(message.sender), id: id)
        if let known = seqs[key] { return known != seq }
        seqs[key] = seq
        if order.count < Self.capacity {
            order.append(key)
        } else {
            seqs[order[oldest]] = nil
            order[oldest] = key
            oldest = (oldest + 1) % Self.capacity
        }
        return false
    }
}
