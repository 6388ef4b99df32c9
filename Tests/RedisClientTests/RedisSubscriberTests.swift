import RedisClient
import Testing

/// The sans-IO pub/sub connection: one channel per command, confirmations matched in order,
/// pushes apart, subscriptions restored with the gap flag after a reset.
@Suite struct RedisSubscriberTests {
    private func bulk(_ text: String) -> String { "$\(text.utf8.count)\r\n\(text)\r\n" }

    private func receive(_ subscriber: RedisSubscriber, _ text: String) -> [RedisSubscriberEvent] {
        var events: [RedisSubscriberEvent] = []
        #expect(subscriber.receive(Array(text.utf8)) { events.append($0) } == nil)
        return events
    }

    /// Subscribing sends one command per channel; confirmations and messages of the three
    /// kinds come out as events, restored: false the first time.
    @Test func confirmationsAndMessages() {
        let subscriber = RedisSubscriber()
        let room = RedisSubscription(.shard, "{room:a}:live")
        let lobby = RedisSubscription(.channel, "lobby")
        let pattern = RedisSubscription(.pattern, "news.*")
        subscriber.connected()
        for subscription in [room, lobby, pattern] { #expect(subscriber.subscribe(subscription) == nil) }
        let sent = String(decoding: subscriber.outbound.bytes, as: UTF8.self)
        #expect(sent == "*2\r\n$10\r\nSSUBSCRIBE\r\n$13\r\n{room:a}:live\r\n*2\r\n$9\r\nSUBSCRIBE\r\n$5\r\nlobby\r\n*2\r\n$10\r\nPSUBSCRIBE\r\n$6\r\nnews.*\r\n")
        let events = receive(subscriber, "*3\r\n" + bulk("ssubscribe") + bulk("{room:a}:live") + ":1\r\n"
            + "*3\r\n" + bulk("subscribe") + bulk("lobby") + ":2\r\n"
            + "*3\r\n" + bulk("smessage") + bulk("{room:a}:live") + bulk("7 hi")
            + "*3\r\n" + bulk("psubscribe") + bulk("news.*") + ":3\r\n"
            + "*4\r\n" + bulk("pmessage") + bulk("news.*") + bulk("news.eu") + bulk("x")
            + "*3\r\n" + bulk("message") + bulk("lobby") + bulk("y"))
        #expect(events == [
            .subscribed(room, restored: false), .subscribed(lobby, restored: false),
            .message(RedisPush(subscription: room, channel: Array("{room:a}:live".utf8), payload: Array("7 hi".utf8))),
            .subscribed(pattern, restored: false),
            .message(RedisPush(subscription: pattern, channel: Array("news.eu".utf8), payload: [120])),
            .message(RedisPush(subscription: lobby, channel: Array("lobby".utf8), payload: [121])),
        ])
        #expect(subscriber.active == [room, lobby, pattern])
    }

    /// After the connection is lost, a new one asks for every subscription again and each
    /// confirmation says restored: true (the owner fills the gap).
    @Test func restoredAfterReset() {
        let subscriber = RedisSubscriber()
        let room = RedisSubscription(.shard, "{room:a}:live")
        subscriber.connected()
        _ = subscriber.subscribe(room)
        _ = receive(subscriber, "*3\r\n" + bulk("ssubscribe") + bulk("{room:a}:live") + ":1\r\n")
        subscriber.reset()
        #expect(subscriber.active.isEmpty)
        #expect(subscriber.outbound.isEmpty)
        subscriber.connected()
        #expect(String(decoding: subscriber.outbound.bytes, as: UTF8.self).contains("SSUBSCRIBE"))
        let events = receive(subscriber, "*3\r\n" + bulk("ssubscribe") + bulk("{room:a}:live") + ":1\r\n")
        #expect(events == [.subscribed(room, restored: true)])
    }

    /// An error answering a subscribe (MOVED on a cluster) and an unasked sunsubscribe drop
    /// the subscription for the owner to place again; an asked unsubscribe is just confirmed.
    @Test func droppedAndUnsubscribed() {
        let subscriber = RedisSubscriber()
        let one = RedisSubscription(.shard, "one")
        let two = RedisSubscription(.shard, "two")
        subscriber.connected()
        _ = subscriber.subscribe(one)
        _ = subscriber.subscribe(two)
        var events = receive(subscriber, "-MOVED 123 127.0.0.1:7001\r\n*3\r\n" + bulk("ssubscribe") + bulk("two") + ":1\r\n")
        #expect(events == [.dropped(one, reason: "MOVED 123 127.0.0.1:7001"), .subscribed(two, restored: false)])
        events = receive(subscriber, "*3\r\n" + bulk("sunsubscribe") + bulk("two") + ":0\r\n")
        #expect(events == [.dropped(two, reason: "unsubscribed by the server")])
        _ = subscriber.forget(two)
        _ = subscriber.subscribe(two)
        _ = receive(subscriber, "*3\r\n" + bulk("ssubscribe") + bulk("two") + ":1\r\n")
        subscriber.unsubscribe(two)
        events = receive(subscriber, "*3\r\n" + bulk("sunsubscribe") + bulk("two") + ":0\r\n")
        #expect(events == [.unsubscribed(two)])
    }

    /// PING is answered by a pong array when subscribed and +PONG when not; an unasked reply
    /// or a non-pub/sub reply breaks the connection.
    @Test func heartbeatAndViolations() {
        let subscriber = RedisSubscriber()
        subscriber.connected()
        #expect(subscriber.heartbeat())
        #expect(!subscriber.heartbeat())
        #expect(receive(subscriber, "+PONG\r\n").isEmpty)
        #expect(!subscriber.isAwaitingPong)
        #expect(subscriber.heartbeat())
        #expect(receive(subscriber, "*2\r\n" + bulk("pong") + bulk("")).isEmpty)
        #expect(subscriber.receive(Array(":5\r\n".utf8)) { _ in } != nil)
        let other = RedisSubscriber()
        other.connected()
        #expect(other.receive(Array(("*3\r\n" + bulk("ssubscribe") + bulk("x") + ":1\r\n").utf8)) { _ in } != nil)
    }

    /// A subscriber wants at most `maxPendingCommands` subscriptions (RELIABILITY.md, "subscriptions
    /// per connection"): one more is refused with `limitExceeded` and nothing is sent for it; one
    /// already wanted is no new subscription; after an unsubscribe there is room again.
    @Test func subscriptionsAreBounded() {
        let subscriber = RedisSubscriber(limits: RedisLimits(maxPendingCommands: 3, maxOutboundBytes: 1 << 20))
        subscriber.connected()
        for name in ["a", "b", "c"] { #expect(subscriber.subscribe(RedisSubscription(.shard, name)) == nil) }
        let sent = subscriber.outbound.bytes.count
        guard case .limitExceeded? = subscriber.subscribe(RedisSubscription(.shard, "d")) else {
            Issue.record("a fourth subscription was taken"); return
        }
        #expect(subscriber.outbound.bytes.count == sent, "something was sent for the refused subscription")
        #expect(subscriber.subscribe(RedisSubscription(.shard, "a")) == nil)
        subscriber.unsubscribe(RedisSubscription(.shard, "a"))
        #expect(subscriber.subscribe(RedisSubscription(.shard, "d")) == nil)
    }
}
