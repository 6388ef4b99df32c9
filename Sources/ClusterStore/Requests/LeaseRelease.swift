import EventRuntime
import RedisClient

/// Frees a lease if `holder` still holds it (with `prefix`, a holder starting with it: a device's
/// lease whatever nick, account and address it names now), then takes it out of the node's holds
/// either way (a lease taken over meanwhile is the other node's to record). Not durable: a lost
/// release leaves a lease its node no longer uses, which the same device takes again and which is
/// freed when the node restarts or is reaped. Answers whether it freed the lease.
public struct LeaseRelease: StoreRequest {
    public let key: String
    let holder: String
    let node: String
    let prefix: Bool
    var released: Result<Bool, RoomStoreError>?

    public init(_ key: String, holder: String, node: String, prefix: Bool = false) {
        self.key = key
        self.holder = holder
        self.node = node
        self.prefix = prefix
    }

    public func start() -> StoreStep<Result<Bool, RoomStoreError>> {
        .send([StoreCommand(Leases.releaseCommand(key, holder: holder, prefix: prefix), key: key)])
    }

    public mutating func answered(_ results: [Result<RedisReply, RoomStoreError>], now: MonotonicTime) -> StoreStep<Result<Bool, RoomStoreError>> {
        if let released { return .done(released) }
        released = results[0].map { $0.integer == 1 }
        let forget = Leases.forgetHold(key, node: node)
        return .send([StoreCommand(forget.command, key: forget.key)])
    }
}
