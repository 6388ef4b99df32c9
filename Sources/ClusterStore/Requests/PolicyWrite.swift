import ChatProtocol
import ChatServerCore
import EventRuntime
import RedisClient

/// An invite or a server ban (``PolicyFormat``): written on its own, durably (a ban lost to a
/// failover would let the banned back), retried while Redis is unavailable or the replicas do not
/// confirm, within reason (``WriteBehindRetries``); a server ban's change is then announced on
/// ``ClusterKeys/serverChannel`` (`bans NODE`) so every other node reads the bans again and closes
/// the connections a new ban matches.
public struct PolicyWrite: StoreRequest {
    public enum Outcome: Equatable, Sendable {
        case written
        /// Given up after its retries (logged by the caller).
        case lost
        /// Not a change the store keeps on its own (a claim's owner is set by its append).
        case notKept
    }

    public let change: PolicyChange
    let node: String
    let sharded: Bool
    var retries = WriteBehindRetries()

    public init(_ change: PolicyChange, node: String, sharded: Bool) {
        self.change = change
        self.node = node
        self.sharded = sharded
    }

    /// The hash and field it changes, and the command.
    var write: StoreCommand? {
        guard let fieldChange = PolicyFormat.settingsChange(change) else { return nil }
        let key: String
        let field: String
        switch change.room {
        case let room?:
            key = RoomKeys(room: room).settings
            switch fieldChange {
            case .set(let name, _), .delete(let name): field = name
            default: return nil
            }
        case nil:
            key = ClusterKeys.serverBans
            switch change {
            case .banAdded(_, let ban): field = ban.key
            case .banRemoved(_, let label): field = ChatValidation.nickKey(label)
            default: return nil
            }
        }
        let command: RedisCommand
        if case .set(_, let value) = fieldChange { command = RedisCommand("HSET", key, field, value) } else { command = RedisCommand("HDEL", key, field) }
        return StoreCommand(command, key: key, durable: true)
    }

    public func start() -> StoreStep<Outcome> {
        guard let write else { return .done(.notKept) }
        return .send([write])
    }

    public mutating func answered(_ results: [Result<RedisReply, RoomStoreError>], now: MonotonicTime) -> StoreStep<Outcome> {
        if case .failure = results[0] { return retries.retry() ? .wait(ReadPatience.retryDelay) : .done(.lost) }
        guard change.room == nil else { return .done(.written) }
        return .done(.written, then: [.publish("bans \(node)", on: ClusterKeys.serverChannel, sharded: sharded)])
    }

    /// Whether a message on ``ClusterKeys/serverChannel`` is another node's change of the bans
    /// (this node's own change is in its core already).
    public static func isOthersBansChange(_ payload: [UInt8], thisNode node: String) -> Bool {
        !payload.elementsEqual("bans \(node)".utf8)
    }
}
