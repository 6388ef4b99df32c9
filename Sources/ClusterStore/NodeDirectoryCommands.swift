import EventRuntime
import RedisClient

/// The node directory's commands for one node and the readers of their replies, without a
/// connection: what ``NodeDirectory`` sends on its client and ``ClusterNode`` hands its driver.
/// Every command is served by the slot of ``NodeDirectory/directoryKey``.
public struct NodeDirectoryCommands: Sendable {
    public let node: String
    /// This process's token for `node` (random): what tells it from another process with the name.
    public let instance: String
    public let lifetime: TimeSpan
    public let reapTimeout: TimeSpan
    /// How often the nodes renew and scan.
    public let interval: TimeSpan

    public init(node: String, instance: String = Hex.lowercase(RandomBytes().bytes(32)), lifetime: TimeSpan = .seconds(6),
                reapTimeout: TimeSpan = .seconds(30), interval: TimeSpan = .seconds(2)) {
        self.node = node
        self.instance = instance
        self.lifetime = lifetime
        self.reapTimeout = reapTimeout
        self.interval = interval
    }

    public var join: RedisCommand { beat("join") }
    public var renew: RedisCommand { beat("renew") }

    private func beat(_ mode: String) -> RedisCommand {
        RedisCommand("EVAL", NodeDirectory.heartbeatScript, "4", NodeDirectory.key, NodeDirectory.seenKey, NodeDirectory.instancesKey,
                     NodeDirectory.reapingKey, node, String(lifetime.nanoseconds / 1_000_000), mode, String(interval.nanoseconds / 1_000_000),
                     instance)
    }

    public func leave(after handover: TimeSpan) -> RedisCommand {
        RedisCommand("EVAL", NodeDirectory.leaveScript, "2", NodeDirectory.key, NodeDirectory.instancesKey, node, instance,
                     String(handover.nanoseconds / 1_000_000))
    }

    public var claim: RedisCommand {
        RedisCommand("EVAL", NodeDirectory.claimScript, "4", NodeDirectory.key, NodeDirectory.reapingKey, NodeDirectory.seenKey,
                     NodeDirectory.instancesKey, String(reapTimeout.nanoseconds / 1_000_000), String(interval.nanoseconds / 1_000_000))
    }

    public func finishedReaping(_ lost: String) -> RedisCommand { RedisCommand("ZREM", NodeDirectory.reapingKey, lost) }

    public var members: RedisCommand { RedisCommand("ZRANGE", NodeDirectory.key, "0", "-1", "WITHSCORES") }

    // MARK: Replies

    /// A heartbeat script's reply (join or renew).
    public static func heartbeat(_ reply: RedisReply) -> Result<NodeDirectory.Heartbeat, RoomStoreError> {
        if let value = reply.integer { return .success(value < 0 ? .reaped : .alive(deadline: value)) }
        guard let parts = reply.elements, parts.count == 3, parts[0].integer == -2, let deadline = parts[1].integer,
              let holder = parts[2].text else {
            return .failure(.rejected("heartbeat answered \(reply)"))
        }
        return .success(.taken(deadline: deadline, holder: holder))
    }

    /// The leave script's reply: whether the name was still this instance's.
    public static func left(_ reply: RedisReply) -> Bool { reply.integer == 1 }

    /// The claim script's reply: the nodes to reap, each with whether it stopped on purpose.
    public static func claims(_ reply: RedisReply) -> Result<[NodeDirectory.Claim], RoomStoreError> {
        guard let flat = reply.elements?.compactMap(\.text), flat.count % 2 == 0 else {
            return .failure(.rejected("claim answered \(reply)"))
        }
        return .success(stride(from: 0, to: flat.count, by: 2).map { NodeDirectory.Claim(node: flat[$0], stopped: flat[$0 + 1] == "stopped") })
    }

    /// The directory's members with their deadlines (Redis time, ms).
    public static func members(_ reply: RedisReply) -> Result<[String: Int64], RoomStoreError> {
        guard let flat = reply.elements, flat.count % 2 == 0 else { return .failure(.rejected("ZRANGE answered \(reply)")) }
        var members: [String: Int64] = [:]
        for index in stride(from: 0, to: flat.count, by: 2) {
            guard let name = flat[index].text, let score = flat[index + 1].text.flatMap({ Double($0) }) else { continue }
            members[name] = Int64(score)
        }
        return .success(members)
    }
}
