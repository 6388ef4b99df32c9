import ChatProtocol
import EventRuntime
import RedisClient

/// The first of `candidates` whose lease a device takes (free, or its own through another node:
/// ``Leases/takeScript`` with "same-owner"), one round trip each and the hold recorded
/// (``Leases/recordHold(_:node:)``); nil when others hold them all.
public struct NickClaim: StoreRequest {
    public let candidates: [String]
    /// The leases' holder (``LeaseFormat/nickHolder(device:)``).
    let holder: String
    let node: String
    var index = 0
    /// The candidate at `index` is taken; its hold is being recorded.
    var recording = false

    public init(candidates: [String], device: String, format: LeaseFormat) {
        self.candidates = candidates
        holder = format.nickHolder(device: device)
        node = format.node
    }

    public func start() -> StoreStep<Result<String?, RoomStoreError>> {
        guard index < candidates.count else { return .done(.success(nil)) }
        let key = Leases.nick(ChatValidation.nickKey(candidates[index]))
        return .send([StoreCommand(Leases.takeCommand(key, holder: holder, sameOwner: true), key: key, durable: true)])
    }

    public mutating func answered(_ results: [Result<RedisReply, RoomStoreError>], now: MonotonicTime) -> StoreStep<Result<String?, RoomStoreError>> {
        if recording {
            if case .failure(let error) = results[0] { return .done(.failure(error)) }
            return .done(.success(candidates[index]))
        }
        switch results[0].flatMap(Leases.taken) {
        case .failure(let error):
            return .done(.failure(error))
        case .success(.heldBy):
            index += 1
            return start()
        case .success(.taken):
            recording = true
            let record = Leases.recordHold(Leases.nick(ChatValidation.nickKey(candidates[index])), node: node)
            return .send([StoreCommand(record.command, key: record.key, durable: true)])
        }
    }
}
