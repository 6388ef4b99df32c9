@testable import ChatServer
import Testing

struct PeerDigestCacheTests {
    /// The cached digest is the peer id's (case-insensitive, 32 hex digits), and the cache never
    /// holds more than its limit: full, it is emptied and starts again.
    @Test func digestsAreRightAndBounded() {
        var cache = PeerDigestCache(limit: 3)
        let peers = (0..<7).map { "0000000\($0)-AAAA-BBBB-CCCC-DDDDDDDDDDDD" }
        for peer in peers {
            #expect(cache.digest(ofPeer: peer) == ClusterLink.digest(ofPeer: peer))
            #expect(cache.digest(ofPeer: peer.lowercased()) == ClusterLink.digest(ofPeer: peer))
            #expect(cache.digests.count <= 3)
        }
        #expect(ClusterLink.digest(ofPeer: peers[0]).count == 32)
        #expect(PeerDigestCache().limit == 2048)
    }
}
