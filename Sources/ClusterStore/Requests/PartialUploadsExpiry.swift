import EventRuntime
import RedisClient

/// The interrupted uploads not resumed since `cutoff` (Unix ms, by any node), at most 1,000 at a
/// time: every node asks now and then and removes them (``PartialUploadWriteRequest``); a record
/// another node removed first is nothing. Their keys; none when Redis could not be asked (the
/// next round asks again).
public struct PartialUploadsExpiry: StoreRequest {
    public let cutoff: Int64

    public init(cutoff: Int64) { self.cutoff = cutoff }

    public func start() -> StoreStep<[String]> {
        .send([StoreCommand(RedisCommand("ZRANGEBYSCORE", "{files}:partial-age", "-inf", String(cutoff), "LIMIT", "0", "1000"),
                            key: FileStoreScripts.keys[0])])
    }

    public func answered(_ results: [Result<RedisReply, RoomStoreError>], now: MonotonicTime) -> StoreStep<[String]> {
        guard case .success(let reply) = results[0] else { return .done([]) }
        return .done(reply.elements?.compactMap(\.text) ?? [])
    }
}
