/// Peer ids' digests (``ClusterLink/digest(ofPeer:)``), kept because the dedupe key of every
/// append and every `dm` receipt names one: a SHA-256 per message cost 28,000 instructions
/// (callgrind, docs/CLUSTER.md). At most ``limit`` entries; emptied when full (the peers of the
/// node's connected clients come back at their next message). Loop thread only.
struct PeerDigestCache {
    static let defaultLimit = 2048
    let limit: Int
    private(set) var digests: [String: String] = [:]

    init(limit: Int = Self.defaultLimit) { self.limit = limit }

    mutating func digest(ofPeer peer: String) -> String {
        if let known = digests[peer] { return known }
        if digests.count >= limit { digests.removeAll(keepingCapacity: true) }
        let digest = ClusterLink.digest(ofPeer: peer)
        digests[peer] = digest
        return digest
    }
}
