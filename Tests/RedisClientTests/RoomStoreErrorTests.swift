@testable import ClusterStore
import RedisClient
import Testing

/// How Redis's answers become the room store's outcomes.
@Suite struct RoomStoreErrorTests {
    /// "Not now" errors (loading, cluster down, failover, migration, busy script) and lost
    /// connections are `unavailable` (the client resends); other errors are `rejected`.
    @Test func transientErrorsAreUnavailable() {
        for text in ["LOADING Redis is loading the dataset in memory", "CLUSTERDOWN The cluster is down",
                     "MASTERDOWN Link with MASTER is down", "READONLY You can't write against a read only replica.",
                     "TRYAGAIN Multiple keys request during rehashing of slot", "BUSY Redis is busy running a script"] {
            guard case .failure(.unavailable) = RoomEventLog.storeResult(.success(.error(text))) else {
                Issue.record("\(text) is not unavailable"); continue
            }
        }
        guard case .failure(.rejected) = RoomEventLog.storeResult(.success(.error("ERR syntax error"))) else {
            Issue.record("ERR is not rejected"); return
        }
        guard case .failure(.unavailable) = RoomEventLog.storeResult(.failure(.connectionLost("reset"))) else {
            Issue.record("a lost connection is not unavailable"); return
        }
        #expect(RoomEvent(published: Array("12 msg/a/7 {\"a\":1}".utf8))
                == RoomEvent(seq: 12, meta: Array("msg/a/7".utf8), payload: Array("{\"a\":1}".utf8)))
        #expect(RoomEvent(published: Array("12 - {\"a\": 1}".utf8))?.payload == Array("{\"a\": 1}".utf8))
        #expect(RoomEvent(published: Array("x - 1".utf8)) == nil)
        #expect(RoomEvent(published: Array("0 - a".utf8)) == nil)
        #expect(RoomEvent(published: Array("12 nometa".utf8)) == nil)
        #expect(RoomEvent(published: Array("12  payload".utf8)) == nil)
        #expect(RoomEvent(published: Array("nospace".utf8)) == nil)
    }
}
