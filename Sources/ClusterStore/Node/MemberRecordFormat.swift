import ChatServerCore

/// A room member's record in the room's members hash, as node `node` writes and reads it:
/// `NODE/DIGEST STATUS NICK ACCOUNT` (`-` for a guest, and for a record without a device).
public struct MemberRecordFormat: Sendable {
    public let node: String

    public init(node: String) { self.node = node }

    public func text(_ member: MemberRecord) -> String {
        "\(node)/\(member.peer.map(PeerDigest.of) ?? "-") \(member.status.rawValue) \(member.nick) \(member.account ?? "-")"
    }

    public func record(_ bytes: [UInt8]) -> MemberRecord? {
        let fields = bytes.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard fields.count == 4, let status = PresenceStatus(rawValue: fields[1]) else { return nil }
        let holder = fields[0].split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let recordNode = holder.first.map(String.init) ?? ""
        let device = holder.count == 2 && holder[1] != "-" ? String(holder[1]) : nil
        return MemberRecord(nick: fields[2], account: fields[3] == "-" ? nil : fields[3], status: status, onThisNode: recordNode == node,
                            device: device)
    }

    /// The node named by a member record.
    public static func node(ofRecord bytes: [UInt8]) -> String {
        String(decoding: bytes.prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: " ") }, as: UTF8.self)
    }

    /// The core's change of a room's members as the room-event script applies it.
    public func membersChange(_ change: MembershipChange) -> RoomMembersChange {
        switch change {
        case .add(let member): return .add(key: member.key, record: text(member))
        case .remove(let keys): return .remove(keys)
        case .rename(let fromKey, let member): return .rename(from: fromKey, to: member.key, record: text(member))
        case .removeIfHeld(let keys, .node(let holder)): return .removeHeld(byPrefix: "\(holder)/", keys: keys)
        case .removeIfHeld(let keys, .thisNode(let peer)): return .removeHeld(byPrefix: "\(node)/\(PeerDigest.of(peer)) ", keys: keys)
        }
    }
}
