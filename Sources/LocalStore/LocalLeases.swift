import ChatProtocol
import ChatServerCore

/// The peer and nick leases of one server, in memory: the shared store's leases (docs/CLUSTER.md)
/// with a single node. A hello takes its device's lease unless a session logged in to another
/// account holds it, then the first candidate nick no other device holds. Nothing of it survives
/// a restart, as no connection does.
struct LocalLeases {
    struct PeerLease {
        var client: ClientID
        var nick: String
        /// The key of the account it is logged in to (nil: a guest), and its address as limits count it.
        var account: String?
        var address: String?
    }

    /// The node's name, for the holders it reports (always this node).
    let node: String
    /// The digest the core knows a device by (``ChatServerState/peerDigest``).
    let digest: @Sendable (String) -> String
    private(set) var peers: [String: PeerLease] = [:]
    /// Nick key → the peer id holding it.
    private(set) var nicks: [String: String] = [:]

    init(node: String, digest: @escaping @Sendable (String) -> String) {
        self.node = node
        self.digest = digest
    }

    mutating func claimHello(peer: String, client: ClientID, account: String?, candidates: [String], address: String) -> HelloClaim {
        let previous = peers[peer]
        let holder = previous.map {
            PeerHolder(node: node, client: $0.client, nick: $0.nick, account: $0.account, isThisNode: true)
        }
        // A session logged in to another account keeps its device's lease.
        guard previous?.account == nil || previous?.account == account else {
            return HelloClaim(deviceTaken: false, previous: holder, nick: nil)
        }
        let taken = firstFree(candidates, for: peer)
        if let taken { nicks[ChatValidation.nickKey(taken)] = peer }
        peers[peer] = PeerLease(client: client, nick: taken ?? "", account: taken == nil ? nil : account,
                                address: taken == nil ? nil : address)
        return HelloClaim(deviceTaken: true, previous: holder, nick: taken)
    }

    mutating func claimNick(candidates: [String], peer: String) -> String? {
        let taken = firstFree(candidates, for: peer)
        if let taken { nicks[ChatValidation.nickKey(taken)] = peer }
        return taken
    }

    mutating func recordPeer(_ peer: String, client: ClientID, nick: String, account: String?, address: String) {
        peers[peer] = PeerLease(client: client, nick: nick, account: account, address: address)
    }

    /// Gives up a nick's lease, and with `andPeer` the peer id's, if `peer` (through `client`) still holds them.
    mutating func release(peer: String, client: ClientID, nick: String, andPeer: Bool) {
        let key = ChatValidation.nickKey(nick)
        if nicks[key] == peer { nicks[key] = nil }
        if andPeer, peers[peer]?.client == client { peers[peer] = nil }
    }

    func nickHolder(_ nick: String) -> NickHolder? {
        nicks[ChatValidation.nickKey(nick)].map { NickHolder(node: node, isThisNode: true, device: digest($0)) }
    }

    func deviceHolder(_ nick: String) -> DeviceHolder? {
        nicks[ChatValidation.nickKey(nick)].map { peer in
            let lease = peers[peer]
            return DeviceHolder(node: node, isThisNode: true, device: digest(peer), account: lease?.account, address: lease?.address)
        }
    }

    /// The first candidate no other device holds (one this device holds is its own).
    private func firstFree(_ candidates: [String], for peer: String) -> String? {
        candidates.first { candidate in
            guard let held = nicks[ChatValidation.nickKey(candidate)] else { return true }
            return held == peer
        }
    }
}
