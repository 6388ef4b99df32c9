import ChatProtocol

/// The account's read marker in each room and conversation as this client knows it (PROTOCOL.md
/// section 13): from `welcome`, from another device's `read`, and from what this device sent. A
/// marker only moves forward, so a `read` is sent only when it moves one (section 17: a lower or
/// equal one is ignored by the server anyway). At most ``limit`` places are remembered.
public struct ReadMarkers: Sendable, Equatable {
    public static let limit = 1_000
    private var markers: [String: Int64] = [:]

    public init() {}

    /// The marker known for `place` (0: none).
    public func marker(of place: MessageTarget) -> Int64 { markers[place.key] ?? 0 }

    /// Notes a marker said by the server; true when it moved the known one forward.
    @discardableResult
    public mutating func learn(_ read: Int64, of place: MessageTarget) -> Bool {
        let key = place.key
        guard read > markers[key] ?? 0 else { return false }
        if markers[key] == nil, markers.count >= Self.limit, let lowest = markers.min(by: { $0.value < $1.value })?.key {
            markers[lowest] = nil
        }
        markers[key] = read
        return true
    }

    /// The `read` to send for `place` shown up to `seq`, or nil when the marker is there already.
    public mutating func shown(_ place: MessageTarget, upTo seq: Int64) -> ChatMessage? {
        guard learn(seq, of: place) else { return nil }
        switch place {
        case .room(let room): return ChatMessage(type: MessageType.read.rawValue, room: room, read: seq)
        case .conversation(let nick): return ChatMessage(type: MessageType.read.rawValue, with: nick, read: seq)
        }
    }

    /// The place a `read` (or a listing of `welcome`) names.
    public static func place(of message: ChatMessage) -> MessageTarget? {
        if let with = message.with { return .conversation(with) }
        return message.room.map { .room($0) }
    }
}
