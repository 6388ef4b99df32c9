import ChatProtocol
import ChatServerCore
import EventRuntime
import RedisClient

/// Who holds `nick` (its lease, ``LeaseFormat/nickHolder(lease:)``).
public struct NickLookup: StoreRequest {
    public let nick: String
    let format: LeaseFormat

    public init(nick: String, format: LeaseFormat) {
        self.nick = nick
        self.format = format
    }

    public func start() -> StoreStep<ClaimOutcome<NickHolder?>> {
        let key = Leases.nick(ChatValidation.nickKey(nick))
        return .send([StoreCommand(RedisCommand("GET", key), key: key)])
    }

    public func answered(_ results: [Result<RedisReply, RoomStoreError>], now: MonotonicTime) -> StoreStep<ClaimOutcome<NickHolder?>> {
        switch results[0] {
        case .failure(let error): .done(.failed("\(error)"))
        case .success(let reply): .done(.answered(format.nickHolder(lease: reply.text)))
        }
    }
}

/// The device holding `nick` (its lease `NODE/DIGEST`) and what the device's lease says of it
/// (``LeaseFormat/deviceHolder(node:device:deviceLease:)``): two reads, the second in the device's slot.
public struct DeviceLookup: StoreRequest {
    public let nick: String
    let format: LeaseFormat
    var holder: (node: String, device: String)?

    public init(nick: String, format: LeaseFormat) {
        self.nick = nick
        self.format = format
    }

    public func start() -> StoreStep<ClaimOutcome<DeviceHolder?>> {
        let key = Leases.nick(ChatValidation.nickKey(nick))
        return .send([StoreCommand(RedisCommand("GET", key), key: key)])
    }

    public mutating func answered(_ results: [Result<RedisReply, RoomStoreError>], now: MonotonicTime) -> StoreStep<ClaimOutcome<DeviceHolder?>> {
        switch (results[0], holder) {
        case (.failure(let error), _):
            return .done(.failed("\(error)"))
        case (.success(let reply), .none):
            guard let named = LeaseFormat.nodeAndDevice(nickLease: reply.text) else { return .done(.answered(nil)) }
            holder = named
            let key = Leases.peer(named.device)
            return .send([StoreCommand(RedisCommand("GET", key), key: key)])
        case (.success(let reply), let named?):
            return .done(.answered(format.deviceHolder(node: named.node, device: named.device, deviceLease: reply.text)))
        }
    }
}
