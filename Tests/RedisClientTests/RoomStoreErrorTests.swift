@testable import ClusterStore
import RedisClient
import Testing

/// How Redis's answers become the room store's outcomes.
@Suite struct RoomStoreErrorTests {
    /// "Not now" errors (loading, cluster down, failover, migration, busy script) and a Redis not
    /// connected are `notStored` (Redis ran nothing; the client resends); a lost connection, an
    /// overdue reply and a write not confirmed by replicas are `unavailable` (it may have run);
    /// both are transient; other errors are `rejected`.
    @Test func transientErrorsAreUnavailable() {
        for text in ["LOADING Redis is loading the dataset in memory", "CLUSTERDOWN The cluster is down",
                     "MASTERDOWN Link with MASTER is down", "READONLY You can't write against a read only replica.",
                     "TRYAGAIN Multiple keys request during rehashing of slot", "BUSY Redis is busy running a script"] {
            guard case .failure(.notStored) = RoomEventLog.storeResult(.success(.error(text))) else {
                Issue.record("\(text) is not notStored"); continue
            }
        }
        guard case .failure(.rejected) = RoomEventLog.storeResult(.success(.error("ERR syntax error"))) else {
            Issue.record("ERR is not rejected"); return
        }
        for failure in [RedisFailure.connectionLost("reset"), .notReplicated("0 of 1"), .stopped] {
            guard case .failure(let error) = RoomEventLog.storeResult(.failure(failure)), case .unavailable = error,
                  error.isTransient, !error.isKnownNotStored else {
                Issue.record("\(failure) is not unavailable"); return
            }
        }
        for failure in [RedisFailure.unavailable("not connected"), .redirection("too many")] {
            guard case .failure(let error) = RoomEventLog.storeResult(.failure(failure)), case .notStored = error,
                  error.isTransient, error.isKnownNotStored else {
                Issue.record("\(failure) is not notStored"); return
            }
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
