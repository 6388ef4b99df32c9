import ClusterStore
import Foundation
import EventRuntime
import RedisClient
import TestSupport
import Testing

/// A node's room feed against a real Redis: every event once, in seq order, across a cut
/// subscription.
@Suite(.serialized) struct RoomFeedTests {
    /// The follower's subscriber connection is killed (CLIENT KILL TYPE pubsub) and comes back
    /// only after a slow backoff, while another node appends 60 more events: the follower
    /// receives some of them live, fills the rest from the stream once its subscription is
    /// restored, and delivers 1...100 exactly once, in order.
    @Test func cutSubscriptionIsFilled() async throws {
        try await RedisHarness.withServer { harness, server in
            var slow = RedisHarness.fastSettings()
            slow.backoff = RedisBackoff(initial: .milliseconds(600), maximum: .milliseconds(600))
            let follower = try harness.client(RedisHarness.standalone(server), settings: slow)
            let writer = RoomEventLog(client: try harness.client(RedisHarness.standalone(server)), historyLength: 1000)
            var delivered: [Int64] = []
            let feed = RoomFeed(log: RoomEventLog(client: follower, historyLength: 1000), loop: harness.loop) { room, event in
                #expect(room == "gap")
                #expect(event.payload == Array("event \(event.seq)".utf8))
                delivered.append(event.seq)
            }
            harness.forward = { index, event in if index == 0 { feed.handle(event) } }
            feed.follow("gap")
            #expect(harness.run { feed.isLive("gap") })
            for seq in 1...40 { _ = try harness.append(writer, room: "gap", event: "event \(seq)").get() }
            #expect(harness.run { delivered.count == 40 })
            #expect(try server.cli("CLIENT", "KILL", "TYPE", "pubsub") == "1")
            var appended = 0
            for seq in 41...100 { writer.append(room: "gap", event: Array("event \(seq)".utf8)) { _ in appended += 1 } }
            #expect(harness.run { appended == 60 && delivered.count == 100 })
            #expect(delivered == Array(1...100))
            #expect(harness.events.contains { if $0.client == 0, case .subscriber(.subscribed(_, restored: true)) = $0.event { return true } else { return false } })
            let live = harness.events.filter { if $0.client == 0, case .subscriber(.message) = $0.event { return true } else { return false } }.count
            #expect(live < 100, "every event came live: the cut made no gap to fill")
            #expect(feed.fillCount >= 1)
        }
    }
}
