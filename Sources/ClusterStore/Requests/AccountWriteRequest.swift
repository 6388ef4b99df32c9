import ChatProtocol
import ChatServerCore
import EventRuntime
import RedisClient

/// A registration, password or certificate change: a durable write (the client is told it is
/// done, so with `--cluster-wait-replicas` the replicas have it first), then announced on
/// ``ClusterKeys/accountChangesChannel`` (``AccountChanges``) so every other node forgets what it
/// had read of the account.
public struct AccountWriteRequest: StoreRequest {
    public let write: AccountWrite
    let node: String
    let sharded: Bool

    public init(_ write: AccountWrite, node: String, sharded: Bool) {
        self.write = write
        self.node = node
        self.sharded = sharded
    }

    public func start() -> StoreStep<AccountWriteOutcome> {
        let name = write.account
        let key = ClusterKeys.account(name)
        let command: RedisCommand
        switch write {
        case .create(let account, let certificate):
            command = RedisCommand("EVAL", Self.createAccountScript, "2", key, ClusterKeys.certificates(name), account.name,
                                   account.passwordHash ?? "", String(account.created), certificate ?? "")
        case .setPasswordHash(_, let hash?): command = RedisCommand("HSET", key, "hash", hash)
        case .setPasswordHash(_, nil): command = RedisCommand("HDEL", key, "hash")
        case .bind(_, let certificate): command = RedisCommand("SADD", ClusterKeys.certificates(name), certificate)
        case .unbind(_, let certificate): command = RedisCommand("SREM", ClusterKeys.certificates(name), certificate)
        case .retire: command = RedisCommand("EVAL", Self.retireAccountScript, "2", key, ClusterKeys.certificates(name))
        }
        return .send([StoreCommand(command, key: key, durable: true)])
    }

    public func answered(_ results: [Result<RedisReply, RoomStoreError>], now: MonotonicTime) -> StoreStep<AccountWriteOutcome> {
        switch results[0] {
        case .failure(let error):
            return .done(.failed("\(error)"))
        case .success(let reply):
            if case .create = write, reply.integer == 0 { return .done(.exists) }
            return .done(.written, then: [AccountChanges.announcement(of: write.account, by: node, sharded: sharded)])
        }
    }

    /// KEYS[1] the account, KEYS[2] its certificates. ARGV[1] name, ARGV[2] hash ('' for none),
    /// ARGV[3] created, ARGV[4] a certificate ('' for none). 0 when the account exists.
    public static let createAccountScript = """
        if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
        redis.call('HSET', KEYS[1], 'name', ARGV[1], 'created', ARGV[3])
        if ARGV[2] ~= '' then redis.call('HSET', KEYS[1], 'hash', ARGV[2]) end
        if ARGV[4] ~= '' then redis.call('SADD', KEYS[2], ARGV[4]) end
        return 1
        """

    /// KEYS[1] the account, KEYS[2] its certificates: every credential goes, the name stays.
    public static let retireAccountScript = """
        redis.call('HDEL', KEYS[1], 'hash')
        redis.call('DEL', KEYS[2])
        return 1
        """
}

/// Account changes on ``ClusterKeys/accountChangesChannel``: `NODE KEY`, the writing node and the
/// account's ``ChatValidation/nickKey(_:)``.
public enum AccountChanges {
    public static func announcement(of account: String, by node: String, sharded: Bool) -> StoreCommand {
        .publish("\(node) \(ChatValidation.nickKey(account))", on: ClusterKeys.accountChangesChannel, sharded: sharded)
    }

    /// The account another node changed (nil for this node's own change, or a message that is none).
    public static func changed(_ payload: [UInt8], thisNode node: String) -> String? {
        let parts = String(decoding: payload, as: UTF8.self).split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0] != node else { return nil }
        return String(parts[1])
    }
}
