import RedisClient

/// Typing indicators between nodes: published on a room's typing channel (``RoomKeys/typing``) as
/// `NODE JSON`, never stored; a node drops its own.
public enum TypingIndicators {
    public static func publication(_ payload: [UInt8], room: String, node: String, sharded: Bool) -> StoreCommand {
        .publish(Array("\(node) ".utf8) + payload, on: RoomKeys(room: room).typing, sharded: sharded)
    }

    /// Another node's indicator (its JSON); nil for this node's own, or a message that is none.
    public static func received(_ message: [UInt8], thisNode node: String) -> [UInt8]? {
        guard let space = message.firstIndex(of: UInt8(ascii: " ")), !message[..<space].elementsEqual(node.utf8) else { return nil }
        return Array(message[(space + 1)...])
    }
}
