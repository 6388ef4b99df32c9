import ChatProtocol
import ChatServerCore
import ClusterStore
import QuicEngine
import RedisClient

/// Leases (peer ids and nicks, their format ``LeaseFormat``'s), nick lookups, member records
/// (``MemberRecordFormat``) and statuses in Redis.
extension ClusterLink {
    /// ``PeerDigest``, under the name the tests and the app know.
    static func digest(ofPeer peer: String) -> String { PeerDigest.of(peer) }

    /// ``digest(ofPeer:)``, from ``peerDigests`` when known.
    func cachedDigest(ofPeer peer: String) -> String { peerDigests.digest(ofPeer: peer) }

    // MARK: Leases

    /// A hello's device lease and first free nick (issue 26, item 5): one script on one Redis
    /// (``Leases/claimHello``); on a Redis Cluster, whose keys are in other slots, the same steps
    /// one slot at a time: the device's lease (`NODE/CONNECTION/` until completed: a session
    /// logged in to an account is taken over only by a connection that proved it), the nick its
    /// device held through another node and then the candidates, and the lease completed.
    func claimHello(_ token: UInt64, peer: String, client connection: ClientID, account: String?, candidates: [String], address: String) {
        let digest = Self.digest(ofPeer: peer)
        let answer: (Result<Leases.HelloLeases, RoomStoreError>) -> Void = { [weak self] result in
            guard let self else { return }
            switch result {
            case .failure(let error):
                report(.helloClaimed(token, .failed("\(error)")))
            case .success(let claim):
                report(.helloClaimed(token, .answered(HelloClaim(deviceTaken: claim.deviceTaken, previous: claim.previous.flatMap(leaseFormat.peerHolder),
                                                                 nick: claim.nick))))
            }
        }
        guard client.isCluster else {
            return leases.claimHello(device: Leases.peer(digest), nicks: candidates,
                                     nickKeys: candidates.map { Leases.nick(ChatValidation.nickKey($0)) }, node: options.node,
                                     connection: "\(connection)", digest: digest, provenAccount: account, address: address, answer)
        }
        leases.takeOverDevice(Leases.peer(digest), holder: leaseFormat.connectionHolder(connection), node: options.node, provenAccount: account) {
            [weak self] result in
            guard let self else { return }
            switch result {
            case .failure(let error):
                answer(.failure(error))
            case .success(let outcome) where !outcome.taken:
                answer(.success(Leases.HelloLeases(deviceTaken: false, previous: outcome.holder, nick: nil)))
            case .success(let outcome):
                var ordered = candidates
                if let previous = outcome.holder.flatMap(leaseFormat.peerHolder), !previous.isThisNode, !previous.nick.isEmpty {
                    ordered.removeAll { ChatValidation.nickKey($0) == ChatValidation.nickKey(previous.nick) }
                    ordered.insert(previous.nick, at: 0)
                }
                takeFirstNick(ordered, peer: peer) { [weak self] result in
                    guard let self else { return }
                    switch result {
                    case .failure(let error): answer(.failure(error))
                    case .success(let nick):
                        if let nick { recordPeer(peer, client: connection, nick: nick, account: account, address: address) }
                        answer(.success(Leases.HelloLeases(deviceTaken: true, previous: outcome.holder, nick: nick)))
                    }
                }
            }
        }
    }

    /// The candidates in order, one round trip each, until one is taken (or held by others all).
    func claimNick(_ token: UInt64, candidates: [String], peer: String) {
        takeFirstNick(candidates, peer: peer) { [weak self] result in
            switch result {
            case .failure(let error): self?.report(.nickClaimed(token, .failed("\(error)")))
            case .success(let nick): self?.report(.nickClaimed(token, .answered(nick)))
            }
        }
    }

    /// The first of `candidates` whose lease this device takes (free, or its own through another
    /// node), one round trip each; nil when others hold them all.
    private func takeFirstNick(_ candidates: [String], peer: String, _ completion: @escaping (Result<String?, RoomStoreError>) -> Void) {
        let holder = leaseFormat.nickHolder(device: Self.digest(ofPeer: peer))
        func attempt(_ index: Int) {
            guard index < candidates.count else { return completion(.success(nil)) }
            let nick = candidates[index]
            leases.take(Leases.nick(ChatValidation.nickKey(nick)), holder: holder, node: options.node, sameOwner: true) { result in
                switch result {
                case .failure(let error): completion(.failure(error))
                case .success(.taken): completion(.success(nick))
                case .success(.heldBy): attempt(index + 1)
                }
            }
        }
        attempt(0)
    }

    func recordPeer(_ peer: String, client connection: ClientID, nick: String, account: String?, address: String) {
        let key = Leases.peer(cachedDigest(ofPeer: peer))
        client.send(RedisCommand("SET", key, leaseFormat.deviceLease(client: connection, nick: nick, account: account, address: address)),
                    key: key) { _ in }
    }

    func releaseIdentity(peer: String, client connection: ClientID, nick: String, andPeer: Bool) {
        leases.release(Leases.nick(ChatValidation.nickKey(nick)), holder: leaseFormat.nickHolder(device: Self.digest(ofPeer: peer)),
                       node: options.node) { _ in }
        guard andPeer else { return }
        // The connection's lease, whatever nick, account and address it names now.
        leases.release(Leases.peer(Self.digest(ofPeer: peer)), holder: leaseFormat.connectionHolder(connection), node: options.node,
                       prefix: true) { _ in }
    }

    func lookUpNick(_ token: UInt64, nick: String) {
        let key = Leases.nick(ChatValidation.nickKey(nick))
        client.send(RedisCommand("GET", key), key: key) { [weak self] result in
            guard let self else { return }
            switch RoomEventLog.storeResult(result) {
            case .failure(let error): report(.nickLookedUp(token, .failed("\(error)")))
            case .success(let reply):
                report(.nickLookedUp(token, .answered(leaseFormat.nickHolder(lease: reply.text))))
            }
        }
    }

    // MARK: Direct messages' receipts

    /// ``ClusterKeys/directReceipt(digest:id:)``, under the name the tests know.
    static func directReceiptKey(digest: String, id: String) -> String { ClusterKeys.directReceipt(digest: digest, id: id) }

    /// The device holding `nick` (its lease `NODE/DIGEST`) and what the device's lease says of it.
    func lookUpDevice(_ token: UInt64, nick: String) {
        let key = Leases.nick(ChatValidation.nickKey(nick))
        client.send(RedisCommand("GET", key), key: key) { [weak self] result in
            guard let self else { return }
            switch RoomEventLog.storeResult(result) {
            case .failure(let error): report(.deviceLookedUp(token, .failed("\(error)")))
            case .success(let reply):
                guard let (node, device) = LeaseFormat.nodeAndDevice(nickLease: reply.text) else {
                    return report(.deviceLookedUp(token, .answered(nil)))
                }
                let peerKey = Leases.peer(device)
                client.send(RedisCommand("GET", peerKey), key: peerKey) { [weak self] result in
                    guard let self else { return }
                    switch RoomEventLog.storeResult(result) {
                    case .failure(let error): report(.deviceLookedUp(token, .failed("\(error)")))
                    case .success(let reply):
                        report(.deviceLookedUp(token, .answered(leaseFormat.deviceHolder(node: node, device: device, deviceLease: reply.text))))
                    }
                }
            }
        }
    }

    func lookUpDirectReceipt(_ token: UInt64, peer: String, id: String) {
        let key = Self.directReceiptKey(digest: cachedDigest(ofPeer: peer), id: id)
        client.send(RedisCommand("GET", key), key: key) { [report] result in
            switch RoomEventLog.storeResult(result) {
            case .failure(let error): report(.directReceiptLookedUp(token, .failed("\(error)")))
            case .success(let reply): report(.directReceiptLookedUp(token, .answered(reply.text.flatMap { Int64($0) })))
            }
        }
    }

    func storeDirectReceipt(peer: String, id: String, ts: Int64) {
        let key = Self.directReceiptKey(digest: cachedDigest(ofPeer: peer), id: id)
        client.send(RedisCommand("SET", key, String(ts), "EX", "600"), key: key, durable: true) { [logger] result in
            if case .failure(let error) = RoomEventLog.storeResult(result) {
                logger(.warning, "dm receipt not stored", ["error": "\(error)"])
            }
        }
    }

    // MARK: Status

    /// A local user's status: to the other nodes, and into its records in its rooms' members.
    func publishMember(_ member: MemberRecord, rooms: [String]) {
        let text = memberFormat.text(member)
        let channel = ClusterKeys.presenceChannel
        client.send(RedisCommand(client.isCluster ? "SPUBLISH" : "PUBLISH", channel, text), key: channel) { _ in }
        for room in rooms {
            let members = RoomKeys(room: room).members
            client.send(RedisCommand("EVAL", Self.updateRecordScript, "1", members, member.key, text), key: members) { _ in }
        }
    }

    /// KEYS[1] a room's members, ARGV[1] the member's key, ARGV[2] its record: replaced only
    /// while the member is there (a status never brings a member back).
    static let updateRecordScript = """
        if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
        return 0
        """

    func receivedStatus(_ payload: [UInt8]) {
        guard MemberRecordFormat.node(ofRecord: payload) != options.node, let record = memberFormat.record(payload) else { return }
        report(.remoteStatus(record))
    }
}
