import ChatProtocol
import ChatServerCore
import EventRuntime
import RedisClient

/// A hello's device lease and first free nick (issue 26, item 5): one script on one Redis
/// (``Leases/claimHelloScript``); on a Redis Cluster, whose keys are in other slots, the same
/// steps one slot at a time: the device's lease (`NODE/CONNECTION/` until completed: a session
/// logged in to an account is taken over only by a connection that proved it) and its hold, the
/// nick the device held through another node and then the candidates (``NickClaim``), and the
/// lease completed (``deviceRecord(digest:client:nick:account:address:format:)``).
public struct HelloLeaseClaim: StoreRequest {
    public typealias Outcome = ClaimOutcome<HelloClaim>

    let digest: String
    let client: ClientID
    let account: String?
    let candidates: [String]
    let address: String
    let format: LeaseFormat
    let sharded: Bool
    var phase = Phase.started

    enum Phase {
        case started
        /// The device's lease was taken from `previous` (nil: free); its hold is being recorded.
        case deviceHold(previous: String?)
        case nicks(NickClaim, previous: String?)
    }

    /// `digest` is the device's (``PeerDigest``); `account` the one the connection proved.
    public init(digest: String, client: ClientID, account: String?, candidates: [String], address: String, format: LeaseFormat, sharded: Bool) {
        self.digest = digest
        self.client = client
        self.account = account
        self.candidates = candidates
        self.address = address
        self.format = format
        self.sharded = sharded
    }

    var deviceKey: String { Leases.peer(digest) }

    public func start() -> StoreStep<Outcome> {
        guard sharded else {
            let command = Leases.claimHelloCommand(device: deviceKey, nicks: candidates,
                                                   nickKeys: candidates.map { Leases.nick(ChatValidation.nickKey($0)) }, node: format.node,
                                                   connection: "\(client)", digest: digest, provenAccount: account, address: address)
            return .send([StoreCommand(command, key: deviceKey, durable: true)])
        }
        let command = Leases.takeOverDeviceCommand(deviceKey, holder: format.connectionHolder(client), provenAccount: account)
        return .send([StoreCommand(command, key: deviceKey, durable: true)])
    }

    public mutating func answered(_ results: [Result<RedisReply, RoomStoreError>], now: MonotonicTime) -> StoreStep<Outcome> {
        switch phase {
        case .started where !sharded:
            switch results[0].flatMap(Leases.helloLeases) {
            case .failure(let error): return .done(.failed("\(error)"))
            case .success(let claim): return .done(.answered(claimed(claim.deviceTaken, previous: claim.previous, nick: claim.nick)))
            }
        case .started:
            switch results[0].flatMap(Leases.takenOver) {
            case .failure(let error):
                return .done(.failed("\(error)"))
            case .success(let outcome) where !outcome.taken:
                return .done(.answered(claimed(false, previous: outcome.holder, nick: nil)))
            case .success(let outcome):
                phase = .deviceHold(previous: outcome.holder)
                let record = Leases.recordHold(deviceKey, node: format.node)
                return .send([StoreCommand(record.command, key: record.key, durable: true)])
            }
        case .deviceHold(let previous):
            if case .failure(let error) = results[0] { return .done(.failed("\(error)")) }
            var ordered = candidates
            if let held = previous.flatMap(format.peerHolder), !held.isThisNode, !held.nick.isEmpty {
                ordered.removeAll { ChatValidation.nickKey($0) == ChatValidation.nickKey(held.nick) }
                ordered.insert(held.nick, at: 0)
            }
            let nicks = NickClaim(candidates: ordered, device: digest, format: format)
            phase = .nicks(nicks, previous: previous)
            return nickStep(nicks.start(), previous: previous)
        case .nicks(var nicks, let previous):
            let step = nicks.answered(results, now: now)
            phase = .nicks(nicks, previous: previous)
            return nickStep(step, previous: previous)
        }
    }

    /// A step of the nicks' claim as this request's.
    private func nickStep(_ step: StoreStep<Result<String?, RoomStoreError>>, previous: String?) -> StoreStep<Outcome> {
        switch step {
        case .send(let commands): return .send(commands)
        case .wait(let delay): return .wait(delay)
        case .done(.failure(let error), _): return .done(.failed("\(error)"))
        case .done(.success(let nick), _):
            let record = nick.map { Self.deviceRecord(digest: digest, client: client, nick: $0, account: account, address: address, format: format) }
            return .done(.answered(claimed(true, previous: previous, nick: nick)), then: record.map { [$0] } ?? [])
        }
    }

    private func claimed(_ deviceTaken: Bool, previous: String?, nick: String?) -> HelloClaim {
        HelloClaim(deviceTaken: deviceTaken, previous: previous.flatMap(format.peerHolder), nick: nick)
    }

    /// The device's lease completed: the connection, its nick, account and address
    /// (``LeaseFormat/deviceLease(client:nick:account:address:)``), written behind.
    public static func deviceRecord(digest: String, client: ClientID, nick: String, account: String?, address: String,
                                    format: LeaseFormat) -> StoreCommand {
        let key = Leases.peer(digest)
        return StoreCommand(RedisCommand("SET", key, format.deviceLease(client: client, nick: nick, account: account, address: address)), key: key)
    }
}
