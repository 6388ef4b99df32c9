import ChatServerCore
import EventRuntime
import RedisClient

/// A direct message's receipt (``ClusterKeys/directReceipt(digest:id:)``, the sender's device
/// digest and the message's id): the stamp of its first send, kept 10 minutes, so that a resend
/// is acknowledged again and delivered nowhere.
public struct DirectReceiptLookup: StoreRequest {
    let key: String

    public init(digest: String, id: String) { key = ClusterKeys.directReceipt(digest: digest, id: id) }

    public func start() -> StoreStep<ClaimOutcome<Int64?>> { .send([StoreCommand(RedisCommand("GET", key), key: key)]) }

    public func answered(_ results: [Result<RedisReply, RoomStoreError>], now: MonotonicTime) -> StoreStep<ClaimOutcome<Int64?>> {
        switch results[0] {
        case .failure(let error): .done(.failed("\(error)"))
        case .success(let reply): .done(.answered(reply.text.flatMap { Int64($0) }))
        }
    }
}

/// Stores a receipt (``DirectReceiptLookup``) durably; the outcome is the failure, if any (logged:
/// a resend of that message is then delivered again).
public struct DirectReceiptStore: StoreRequest {
    public static let lifetimeSeconds = 600
    let key: String
    let ts: Int64

    public init(digest: String, id: String, ts: Int64) {
        key = ClusterKeys.directReceipt(digest: digest, id: id)
        self.ts = ts
    }

    public func start() -> StoreStep<RoomStoreError?> {
        .send([StoreCommand(RedisCommand("SET", key, String(ts), "EX", String(Self.lifetimeSeconds)), key: key, durable: true)])
    }

    public func answered(_ results: [Result<RedisReply, RoomStoreError>], now: MonotonicTime) -> StoreStep<RoomStoreError?> {
        if case .failure(let error) = results[0] { return .done(error) }
        return .done(nil)
    }
}
