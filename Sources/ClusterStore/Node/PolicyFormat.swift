import ChatProtocol
import ChatServerCore
import RedisClient

/// Room settings and server bans in Redis. A room's settings hash (``RoomKeys/settings``) has one
/// field per fact: `owner`, `topic` (`TS SETBY TEXT`), `mode:NAME`, `op:KEY` (the account's
/// name), `ban:KEY` (a ban), `invite:a:KEY` (an account) / `invite:d:DIGEST` (a guest's device).
/// Server bans are the hash ``ClusterKeys/serverBans``, `KEY` → a ban.
///
/// A ban is `LABEL\tACCOUNT\tPEER\tADDRESS\tBY\tTS\tREASON\tDEVICE` (empty fields for what it has
/// not; texts have no control characters; DEVICE since issue 23, absent before). A guest ban keeps
/// the guest's peer id as the SQLite store does: it is matched against reconnecting guests; a
/// guest banned through another node is known by its device (the digest of its peer id) instead.
public enum PolicyFormat {
    public static func settingsChange(_ change: PolicyChange) -> RoomSettingsChange? {
        switch change {
        // The first claim owns the room for good: the script sets it only while it is absent.
        case .owner(_, let account): return .setIfAbsent(field: "owner", value: account)
        case .topic(_, let topic?): return .set(field: "topic", value: "\(topic.ts) \(topic.setBy) \(topic.text)")
        case .topic(_, nil): return .delete(field: "topic")
        case .mode(_, let mode, let on): return on ? .set(field: "mode:\(mode.rawValue)", value: "1") : .delete(field: "mode:\(mode.rawValue)")
        case .operatorAdded(_, let account): return .set(field: "op:\(ChatValidation.nickKey(account))", value: account)
        case .operatorRemoved(_, let account): return .delete(field: "op:\(ChatValidation.nickKey(account))")
        case .banAdded(_, let ban): return .set(field: "ban:\(ban.key)", value: encode(ban))
        case .banRemoved(_, let label): return .delete(field: "ban:\(ChatValidation.nickKey(label))")
        case .inviteAdded(_, .account(let key)): return .set(field: "invite:a:\(key)", value: "1")
        case .inviteAdded(_, .peer(let peer)): return .set(field: "invite:d:\(PeerDigest.of(peer))", value: "1")
        case .inviteAdded(_, .device(let digest)): return .set(field: "invite:d:\(digest)", value: "1")
        }
    }

    public static func encode(_ ban: Ban) -> String {
        var fields = [ban.label, ban.account ?? "", ban.peer ?? "", ban.address ?? "", ban.by, String(ban.ts), ban.reason]
        if let device = ban.device { fields.append(device) }
        return fields.joined(separator: "\t")
    }

    public static func decodeBan(_ bytes: [UInt8]) -> Ban? {
        let fields = String(decoding: bytes, as: UTF8.self).split(separator: "\t", maxSplits: 7, omittingEmptySubsequences: false)
            .map(String.init)
        guard fields.count == 7 || fields.count == 8, let ts = Int64(fields[5]) else { return nil }
        return Ban(label: fields[0], account: fields[1].isEmpty ? nil : fields[1], peer: fields[2].isEmpty ? nil : fields[2],
                   address: fields[3].isEmpty ? nil : fields[3], device: fields.count == 8 && !fields[7].isEmpty ? fields[7] : nil,
                   reason: fields[6], by: fields[4], ts: ts)
    }

    /// Server bans as HGETALL of ``ClusterKeys/serverBans`` answers them; nil when the reply is
    /// not a hash.
    public static func serverBans(_ reply: RedisReply) -> [Ban]? {
        RoomEventLog.hash(reply).map { $0.values.compactMap(decodeBan) }
    }

    public static func settings(from fields: [String: [UInt8]]) -> RoomSettings {
        var settings = RoomSettings()
        var bans: [Ban] = []
        for (field, value) in fields {
            let text = String(decoding: value, as: UTF8.self)
            switch field {
            case "owner": settings.owner = text
            case "topic":
                let parts = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
                if parts.count == 3, let ts = Int64(parts[0]) { settings.topic = RoomTopic(text: String(parts[2]), setBy: String(parts[1]), ts: ts) }
            default:
                if field.hasPrefix("mode:"), let mode = RoomMode(rawValue: String(field.dropFirst(5))) { settings.modes.insert(mode) }
                if field.hasPrefix("op:") { settings.operators[String(field.dropFirst(3))] = text }
                if field.hasPrefix("ban:"), let ban = decodeBan(value) { bans.append(ban) }
                if field.hasPrefix("invite:a:") { settings.invites.insert(.account(String(field.dropFirst(9)))) }
                if field.hasPrefix("invite:d:") { settings.invites.insert(.device(String(field.dropFirst(9)))) }
            }
        }
        settings.bans = BanList(bans)
        return settings
    }
}
