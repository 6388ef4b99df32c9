import ChatProtocol
import ChatServerCore
import ClusterStore
import QuicEngine
import RedisClient

/// Room settings and server bans in Redis. A room's settings hash (``RoomKeys/settings``) has one
/// field per fact: `owner`, `topic` (`TS SETBY TEXT`), `mode:NAME`, `op:KEY` (the account's
/// name), `ban:KEY` (a ban), `invite:a:KEY` (an account) / `invite:d:DIGEST` (a guest's device). Server bans are the hash
/// `{server}:bans`, `KEY` → a ban; a change is published on `{server}:changes` so every node reads
/// them again and closes its connections a new ban matches.
///
/// A ban is `LABEL\tACCOUNT\tPEER\tADDRESS\tBY\tTS\tREASON\tDEVICE` (empty fields for what it has
/// not; texts have no control characters; DEVICE since issue 23, absent before). A guest ban keeps
/// the guest's peer id as the SQLite store does: it is matched against reconnecting guests; a
/// guest banned through another node is known by its device (the digest of its peer id) instead.
extension ClusterLink {
    static let serverBansKey = "{server}:bans"
    static let serverChannel = "{server}:changes"

    var serverSubscription: RedisSubscription {
        RedisSubscription(client.isCluster ? .shard : .channel, Self.serverChannel)
    }

    // MARK: Encoding

    static func settingsChange(_ change: PolicyChange) -> RoomSettingsChange? {
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
        case .inviteAdded(_, .peer(let peer)): return .set(field: "invite:d:\(digest(ofPeer: peer))", value: "1")
        case .inviteAdded(_, .device(let digest)): return .set(field: "invite:d:\(digest)", value: "1")
        }
    }

    static func encode(_ ban: Ban) -> String {
        var fields = [ban.label, ban.account ?? "", ban.peer ?? "", ban.address ?? "", ban.by, String(ban.ts), ban.reason]
        if let device = ban.device { fields.append(device) }
        return fields.joined(separator: "\t")
    }

    static func decodeBan(_ bytes: [UInt8]) -> Ban? {
        let fields = String(decoding: bytes, as: UTF8.self).split(separator: "\t", maxSplits: 7, omittingEmptySubsequences: false)
            .map(String.init)
        guard fields.count == 7 || fields.count == 8, let ts = Int64(fields[5]) else { return nil }
        return Ban(label: fields[0], account: fields[1].isEmpty ? nil : fields[1], peer: fields[2].isEmpty ? nil : fields[2],
                   address: fields[3].isEmpty ? nil : fields[3], device: fields.count == 8 && !fields[7].isEmpty ? fields[7] : nil,
                   reason: fields[6], by: fields[4], ts: ts)
    }

    static func settings(from fields: [String: [UInt8]]) -> RoomSettings {
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

    // MARK: Reads and writes

    func readState(_ token: UInt64, room: String, startedAt: QuicTime = .now()) {
        log.state(room: room) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let state):
                report(.roomState(token, seq: state.seq, state.members.values.compactMap { memberRecord($0) },
                                  Self.settings(from: state.settings)))
            case .failure(let error) where error.isTransient && QuicTime.now() < startedAt + Self.readPatience:
                loop.schedule(at: .now() + Self.readRetryDelay) { [weak self] in self?.readState(token, room: room, startedAt: startedAt) }
            case .failure(let error):
                logger(.error, "room state read failed", ["room": room, "error": "\(error)"])
                report(.roomState(token, seq: 0, nil, nil))
            }
        }
    }

    /// An invite or a server ban: written on its own, durably (a ban lost to a failover would let
    /// the banned back; retried while Redis is unavailable or the replicas do not confirm, within
    /// reason); a server ban is then announced to the other nodes.
    func writePolicy(_ change: PolicyChange, attempt: Int = 0) {
        guard let fieldChange = Self.settingsChange(change) else { return }
        let key: String
        let field: String
        switch change.room {
        case let room?:
            key = RoomKeys(room: room).settings
            if case .set(let name, _) = fieldChange { field = name } else if case .delete(let name) = fieldChange { field = name } else { return }
        case nil:
            key = Self.serverBansKey
            switch change {
            case .banAdded(_, let ban): field = ban.key
            case .banRemoved(_, let label): field = ChatValidation.nickKey(label)
            default: return
            }
        }
        let command: RedisCommand
        if case .set(_, let value) = fieldChange { command = RedisCommand("HSET", key, field, value) } else { command = RedisCommand("HDEL", key, field) }
        client.send(command, key: key, durable: true) { [weak self] result in
            guard let self else { return }
            if case .failure = RoomEventLog.storeResult(result) {
                guard attempt < 25 else { return logger(.error, "policy change lost", ["room": change.room ?? "server"]) }
                loop.schedule(at: .now() + Self.readRetryDelay) { [weak self] in self?.writePolicy(change, attempt: attempt + 1) }
                return
            }
            if change.room == nil {
                let channel = Self.serverChannel
                client.send(RedisCommand(client.isCluster ? "SPUBLISH" : "PUBLISH", channel, "bans \(options.node)"), key: channel) { _ in }
            }
        }
    }

    /// Every server ban, for the core (at the start, and when another node changed them).
    func loadServerBans(_ done: @escaping (Bool) -> Void = { _ in }) {
        client.send(RedisCommand("HGETALL", Self.serverBansKey), key: Self.serverBansKey) { [weak self] result in
            guard let self, case .success(let reply) = RoomEventLog.storeResult(result), let fields = RoomEventLog.hash(reply) else {
                return done(false)
            }
            report(.serverBans(fields.values.compactMap(Self.decodeBan)))
            done(true)
        }
    }
}
