@testable import ClusterStore
import RedisClient

/// The few Redis commands and node scripts a ``ClusterNode`` sends, kept in memory with the
/// scripts' meaning written again in Swift (the scripts themselves are tested against a real
/// redis-server in RedisClientTests). Redis's clock (`TIME`) is ``clock``, in milliseconds.
final class InMemoryRedis {
    var strings: [String: String] = [:]
    var sets: [String: Set<String>] = [:]
    var hashes: [String: [String: String]] = [:]
    var sortedSets: [String: [String: Int64]] = [:]
    var clock: Int64 = 1_000_000
    var evictionPolicy = "noeviction"
    /// Commands run, by name (`EVAL` by the harness's label).
    var executed: [String] = []
    /// Messages published (PUBLISH and SPUBLISH), as `CHANNEL MESSAGE`.
    var published: [String] = []

    func flushAll() {
        strings = [:]
        sets = [:]
        hashes = [:]
        sortedSets = [:]
    }

    func execute(_ command: RedisCommand) -> Result<RedisReply, RoomStoreError> {
        executed.append(NodeHarness.label(command))
        let a = command.arguments.map { String(decoding: $0, as: UTF8.self) }
        switch a[0] {
        case "GET": return .success(strings[a[1]].map(RedisReply.text) ?? .null)
        case "SET":
            if a.count >= 5, a[3] == "NX", a[4] == "GET" {
                let old = strings[a[1]]
                if old == nil { strings[a[1]] = a[2] }
                return .success(old.map(RedisReply.text) ?? .null)
            }
            strings[a[1]] = a[2]
            return .success(.status("OK"))
        case "DEL":
            let existed = strings[a[1]] != nil || sets[a[1]] != nil || hashes[a[1]] != nil || sortedSets[a[1]] != nil
            strings[a[1]] = nil
            sets[a[1]] = nil
            hashes[a[1]] = nil
            sortedSets[a[1]] = nil
            return .success(.integer(existed ? 1 : 0))
        case "SADD":
            sets[a[1], default: []].formUnion(a.dropFirst(2))
            return .success(.integer(1))
        case "SREM":
            let removed = sets[a[1]]?.remove(a[2]) != nil
            return .success(.integer(removed ? 1 : 0))
        case "SMEMBERS": return .success(.texts((sets[a[1]] ?? []).sorted()))
        case "HSET":
            for index in stride(from: 2, to: a.count - 1, by: 2) { hashes[a[1], default: [:]][a[index]] = a[index + 1] }
            return .success(.integer(1))
        case "HDEL":
            let removed = hashes[a[1]]?.removeValue(forKey: a[2]) != nil
            return .success(.integer(removed ? 1 : 0))
        case "PUBLISH", "SPUBLISH":
            published.append("\(a[1]) \(a[2])")
            return .success(.integer(0))
        case "HGETALL": return .success(.texts((hashes[a[1]] ?? [:]).sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] }))
        case "ZRANGE":
            return .success(.texts((sortedSets[a[1]] ?? [:]).sorted { $0.value < $1.value }.flatMap { [$0.key, String($0.value)] }))
        case "ZREM":
            let removed = sortedSets[a[1]]?.removeValue(forKey: a[2]) != nil
            return .success(.integer(removed ? 1 : 0))
        case "INFO": return .success(.text("# Memory\r\nmaxmemory_policy:\(evictionPolicy)\r\n"))
        case "EVAL":
            let count = Int(a[2])!
            return script(a[1], keys: Array(a[3..<(3 + count)]), arguments: Array(a[(3 + count)...]))
        default: return .success(.error("ERR unknown command '\(a[0])'"))
        }
    }

    private func script(_ source: String, keys: [String], arguments: [String]) -> Result<RedisReply, RoomStoreError> {
        switch source {
        case NodeDirectory.heartbeatScript: return .success(heartbeat(keys: keys, arguments: arguments))
        case NodeDirectory.claimScript: return .success(claim(keys: keys, reapTimeout: Int64(arguments[0])!))
        case NodeDirectory.leaveScript:
            guard hashes[keys[1]]?[arguments[0]] == arguments[1] else { return .success(.integer(0)) }
            sortedSets[keys[0], default: [:]][arguments[0]] = clock + Int64(arguments[2])!
            hashes[keys[1], default: [:]][arguments[0]] = "stopping:" + arguments[1]
            return .success(.integer(1))
        case RoomEventLog.stateScript:
            let flat = { (hash: [String: String]?) in RedisReply.texts((hash ?? [:]).sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] }) }
            return .success(.array([.text(strings[keys[0]] ?? "0"), flat(hashes[keys[1]]), flat(hashes[keys[2]])]))
        case Leases.takeScript:
            // Takes a free lease, keeps one the caller holds, takes one over from the same owner.
            let owner = { (holder: String) in holder.split(separator: "/", maxSplits: 1).dropFirst().first.map(String.init) }
            guard let current = strings[keys[0]] else {
                strings[keys[0]] = arguments[0]
                return .success(.array([.integer(1), .text(arguments[0])]))
            }
            if current == arguments[0] { return .success(.array([.integer(1), .text(current)])) }
            if arguments[1] == "same-owner", owner(current) == owner(arguments[0]) {
                strings[keys[0]] = arguments[0]
                return .success(.array([.integer(1), .text(current)]))
            }
            return .success(.array([.integer(0), .text(current)]))
        case Leases.releaseScript:
            // Only while that holder (or a holder with that prefix) still holds it.
            guard let current = strings[keys[0]],
                  arguments[1] == "prefix" ? current.hasPrefix(arguments[0]) : current == arguments[0] else { return .success(.integer(0)) }
            strings[keys[0]] = nil
            return .success(.integer(1))
        case Leases.takeOverDeviceScript:
            // Taken over unless the session holding it is logged in to another account.
            let current = strings[keys[0]]
            if let current {
                let fields = LeaseFormat.deviceLeaseFields(current)
                if fields.count >= 4, !fields[3].isEmpty, fields[3] != "-", fields[3] != arguments[1] {
                    return .success(.array([.integer(0), .text(current)]))
                }
            }
            strings[keys[0]] = arguments[0]
            return .success(.array([.integer(1), .text(current ?? "")]))
        case Leases.releaseAllScript:
            var freed: [String] = []
            for key in keys where strings[key]?.hasPrefix(arguments[0]) == true {
                strings[key] = nil
                freed.append(key)
            }
            return .success(.texts(freed))
        case ClusterNode.raiseSeqScript:
            if Int64(strings[keys[0]] ?? "0")! < Int64(arguments[0])! { strings[keys[0]] = arguments[0] }
            return .success(.integer(0))
        case FileStoreScripts.buildPartiesScript:
            if strings["{files}:parties-built"] != nil { return .success(.integer(0)) }
            strings["{files}:parties-built"] = "1"
            return .success(.integer(1))
        case FileStoreScripts.claimFolderScript:
            if let known = strings[keys[0]] { return .success(.text(known)) }
            strings[keys[0]] = arguments[0]
            return .success(.text(arguments[0]))
        default:
            return .success(.error("NOSCRIPT this store does not know it"))
        }
    }

    /// ``NodeDirectory/heartbeatScript`` without the visit (this store is never left unvisited).
    private func heartbeat(keys: [String], arguments: [String]) -> RedisReply {
        let (node, lifetime, mode, instance) = (arguments[0], Int64(arguments[1])!, arguments[2], arguments[4])
        let holder = hashes[keys[2]]?[node]
        let current = sortedSets[keys[0]]?[node]
        if mode == "renew" {
            if let holder, holder != instance { return .array([.integer(-2), .integer(current ?? 0), .text(holder)]) }
            if current == nil { return .integer(-1) }
        } else {
            if let current, current > clock, holder != instance { return .array([.integer(-2), .integer(current), .text(holder ?? "")]) }
            if let claim = sortedSets[keys[3]]?[node], claim > clock { return .array([.integer(-2), .integer(claim), .text("reaping")]) }
        }
        let deadline = clock + lifetime
        sortedSets[keys[0], default: [:]][node] = deadline
        hashes[keys[2], default: [:]][node] = instance
        return .integer(deadline)
    }

    /// ``NodeDirectory/claimScript`` without the visit.
    private func claim(keys: [String], reapTimeout: Int64) -> RedisReply {
        var claimed: [String] = []
        for (name, deadline) in (sortedSets[keys[0]] ?? [:]).sorted(by: { $0.value < $1.value }) where deadline <= clock {
            sortedSets[keys[0]]?[name] = nil
            let holder = hashes[keys[3]]?.removeValue(forKey: name)
            claimed += [name, holder?.hasPrefix("stopping:") == true ? "stopped" : "lost"]
        }
        for (name, deadline) in (sortedSets[keys[1]] ?? [:]).sorted(by: { $0.value < $1.value }) where deadline <= clock {
            claimed += [name, "lost"]
        }
        for index in stride(from: 0, to: claimed.count, by: 2) {
            sortedSets[keys[1], default: [:]][claimed[index]] = clock + reapTimeout
        }
        return .texts(claimed)
    }
}

extension NodeHarness {
    /// Answers every command the node sends, and the commands those answers bring, from `store`.
    func serve(from store: InMemoryRedis) {
        while !unanswered.isEmpty {
            let command = unanswered.removeFirst()
            let result = store.execute(command.command).flatMap { reply -> Result<RedisReply, RoomStoreError> in
                if case .error(let text) = reply { return .failure(.rejected(text)) }
                return .success(reply)
            }
            switch command.route {
            case .key: take(node.answered(command.id, result, now: now, followed: { followed }))
            case .eachDataServer: take(node.answered(command.id, each: [("memory", result)], now: now))
            }
        }
    }
}
