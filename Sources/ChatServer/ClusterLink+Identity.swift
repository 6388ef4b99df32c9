import ChatProtocol
import ChatServerCore
import ClusterStore
import RedisClient

/// Leases (peer ids and nicks, their format ``LeaseFormat``'s), nick lookups, member records
/// (``MemberRecordFormat``) and statuses in Redis.
extension ClusterLink {
    /// ``PeerDigest``, under the name the tests and the app know.
    static func digest(ofPeer peer: String) -> String { PeerDigest.of(peer) }

    /// ``digest(ofPeer:)``, from ``peerDigests`` when known.
    func cachedDigest(ofPeer peer: String) -> String { peerDigests.digest(ofPeer: peer) }

    // MARK: Leases

    /// A hello's device lease and first free nick (``HelloLeaseClaim``).
    func claimHello(_ token: UInt64, peer: String, client connection: ClientID, account: String?, candidates: [String], address: String) {
        let claim = HelloLeaseClaim(digest: Self.digest(ofPeer: peer), client: connection, account: account, candidates: candidates,
                                    address: address, format: leaseFormat, sharded: client.isCluster)
        requests.run(claim) { [report] in report(.helloClaimed(token, $0)) }
    }

    /// The candidates in order, one round trip each, until one is taken (``NickClaim``).
    func claimNick(_ token: UInt64, candidates: [String], peer: String) {
        requests.run(NickClaim(candidates: candidates, device: Self.digest(ofPeer: peer), format: leaseFormat)) { [report] result in
            switch result {
            case .failure(let error): report(.nickClaimed(token, .failed("\(error)")))
            case .success(let nick): report(.nickClaimed(token, .answered(nick)))
            }
        }
    }

    func recordPeer(_ peer: String, client connection: ClientID, nick: String, account: String?, address: String) {
        requests.send(HelloLeaseClaim.deviceRecord(digest: cachedDigest(ofPeer: peer), client: connection, nick: nick, account: account,
                                                   address: address, format: leaseFormat))
    }

    func releaseIdentity(peer: String, client connection: ClientID, nick: String, andPeer: Bool) {
        let device = Self.digest(ofPeer: peer)
        requests.run(LeaseRelease(Leases.nick(ChatValidation.nickKey(nick)), holder: leaseFormat.nickHolder(device: device), node: options.node)) { _ in }
        guard andPeer else { return }
        // The connection's lease, whatever nick, account and address it names now.
        requests.run(LeaseRelease(Leases.peer(device), holder: leaseFormat.connectionHolder(connection), node: options.node, prefix: true)) { _ in }
    }

    func lookUpNick(_ token: UInt64, nick: String) {
        requests.run(NickLookup(nick: nick, format: leaseFormat)) { [report] in report(.nickLookedUp(token, $0)) }
    }

    // MARK: Direct messages' receipts

    /// ``ClusterKeys/directReceipt(digest:id:)``, under the name the tests know.
    static func directReceiptKey(digest: String, id: String) -> String { ClusterKeys.directReceipt(digest: digest, id: id) }

    /// The device holding `nick` and what the device's lease says of it (``DeviceLookup``).
    func lookUpDevice(_ token: UInt64, nick: String) {
        requests.run(DeviceLookup(nick: nick, format: leaseFormat)) { [report] in report(.deviceLookedUp(token, $0)) }
    }

    func lookUpDirectReceipt(_ token: UInt64, peer: String, id: String) {
        // Redis keeps the receipts of `dm`s only (a room `msg`'s dedupe key is the room's, in its append).
        requests.run(DirectReceiptLookup(digest: cachedDigest(ofPeer: peer), id: id)) { [report] outcome in
            switch outcome {
            case .answered(let ts): report(.directReceiptLookedUp(token, .answered(ts.map { MessageReceipt(peer: peer, id: id, ts: $0) })))
            case .failed(let why): report(.directReceiptLookedUp(token, .failed(why)))
            }
        }
    }

    func storeDirectReceipt(peer: String, id: String, ts: Int64) {
        requests.run(DirectReceiptStore(digest: cachedDigest(ofPeer: peer), id: id, ts: ts)) { [logger] failure in
            if let failure { logger(.warning, "dm receipt not stored", ["error": "\(failure)"]) }
        }
    }

    // MARK: Status

    /// A local user's status: to the other nodes, and into its records in its rooms' members.
    func publishMember(_ member: MemberRecord, rooms: [String]) {
        for command in MemberStatusPublication.commands(member, rooms: rooms, format: memberFormat, sharded: client.isCluster) {
            requests.send(command)
        }
    }

    func receivedStatus(_ payload: [UInt8]) {
        guard MemberRecordFormat.node(ofRecord: payload) != options.node, let record = memberFormat.record(payload) else { return }
        report(.remoteStatus(record))
    }
}
