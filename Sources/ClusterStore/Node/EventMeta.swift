import ChatServerCore

/// A stored or published room event's meta: `KIND/NODE/CLIENT/STATUS/TOKEN`: the client when a
/// connection made it, STATUS for a member a `joined` or `nick` adds who is not `online` (else
/// empty), TOKEN the node's append (its ack may go out with the event, before the reply). Events
/// stored before the token was added have `KIND/NODE/CLIENT[/STATUS]`.
public enum EventMeta {
    /// The meta of `append`, made by node `node`.
    public static func encode(_ append: RoomEventAppend, node: String) -> [UInt8] {
        Array(("\(append.kind.rawValue)/\(node)/\(append.origin.map(String.init) ?? "")"
               + "/\(append.memberStatus?.rawValue ?? "")/\(append.token)").utf8)
    }

    /// `event` of `room` as the core of node `node` takes it; nil when its meta is not one.
    public static func sharedEvent(room: String, _ event: RoomEvent, node: String) -> SharedRoomEvent? {
        let parts = event.meta.split(separator: UInt8(ascii: "/"), maxSplits: 4, omittingEmptySubsequences: false)
        guard (3...5).contains(parts.count), let kind = StoredEventKind(rawValue: String(decoding: parts[0], as: UTF8.self)) else {
            return nil
        }
        var origin: ClientID?
        var append: UInt64?
        if parts[1].elementsEqual(node.utf8) {
            origin = ClientID(String(decoding: parts[2], as: UTF8.self))
            append = parts.count == 5 ? UInt64(String(decoding: parts[4], as: UTF8.self)) : nil
        }
        let status = parts.count >= 4 ? PresenceStatus(rawValue: String(decoding: parts[3], as: UTF8.self)) : nil
        return SharedRoomEvent(room: room, seq: event.seq, kind: kind, origin: origin, append: append, payload: event.payload,
                               memberStatus: status)
    }
}
