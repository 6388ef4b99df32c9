import EventRuntime
import RedisClient
import Testing

/// Slots, redirections, URLs and backoff: the pure parts of the cluster client.
@Suite struct RedisAddressingTests {
    /// CRC16/XMODEM as Redis Cluster uses it, with hash tags (values from the Redis
    /// specification; the cluster tests check others against a real server's CLUSTER KEYSLOT).
    @Test func keySlots() {
        #expect(RedisKeySlot.slot(of: "123456789") == 0x31C3 % 16384)
        #expect(RedisKeySlot.slot(of: "foo") == 12182)
        #expect(RedisKeySlot.slot(of: "{user1000}.following") == RedisKeySlot.slot(of: "{user1000}.followers"))
        #expect(RedisKeySlot.slot(of: "{user1000}.following") == RedisKeySlot.slot(of: "user1000"))
        // An empty tag does not count: the whole key is hashed.
        #expect(RedisKeySlot.slot(of: "foo{}{bar}") == RedisKeySlot.slot(of: Array("foo{}{bar}".utf8)))
        #expect(RedisKeySlot.slot(of: "foo{}{bar}") != RedisKeySlot.slot(of: "bar"))
        // The first { and the first } after it.
        #expect(RedisKeySlot.slot(of: "foo{{bar}}zap") == RedisKeySlot.slot(of: "{bar"))
        #expect(RedisKeySlot.slot(of: "foo{bar}{zap}") == RedisKeySlot.slot(of: "bar"))
        #expect(RedisKeySlot.slot(of: "") == 0)
    }

    /// MOVED and ASK errors parse; other errors are no redirection.
    @Test func redirections() {
        #expect(RedisRedirect(error: "MOVED 3999 127.0.0.1:6381") == .moved(slot: 3999, to: RedisServerAddress(host: "127.0.0.1", port: 6381)))
        #expect(RedisRedirect(error: "ASK 1 [::1]:7000") == .ask(slot: 1, to: RedisServerAddress(host: "::1", port: 7000)))
        #expect(RedisRedirect(error: "MOVED 16384 127.0.0.1:1") == nil)
        #expect(RedisRedirect(error: "ERR MOVED") == nil)
        #expect(RedisRedirect(error: "NOSCRIPT No matching script") == nil)
    }

    /// `--cluster redis://HOST:PORT[/DB]` parses; anything else is refused.
    @Test func urls() {
        #expect(RedisURL("redis://127.0.0.1:6380/2") == RedisURL(server: RedisServerAddress(host: "127.0.0.1", port: 6380), database: 2))
        #expect(RedisURL("redis://cache") == RedisURL(server: RedisServerAddress(host: "cache", port: 6379)))
        #expect(RedisURL("redis://[::1]:7000") == RedisURL(server: RedisServerAddress(host: "::1", port: 7000)))
        #expect(RedisURL("redis://[::1]")?.server.port == 6379)
        for bad in ["http://x:1", "redis://", "redis://x:0", "redis://x:99999", "redis://u:p@x:1", "redis://x:1/abc",
                    "redis://x:1/-1", "redis://::1:7000", "redis://[::1"] {
            #expect(RedisURL(bad) == nil, "\(bad)")
        }
    }

    /// Backoff doubles to its maximum, each delay drawn from the upper half of its ceiling.
    @Test func backoff() {
        let backoff = RedisBackoff(initial: .milliseconds(100), maximum: .seconds(2))
        #expect(backoff.delay(attempt: 0, random: 0) == .milliseconds(50))
        #expect(backoff.delay(attempt: 0, random: .max) <= .milliseconds(100))
        #expect(backoff.delay(attempt: 3, random: 0) == .milliseconds(400))
        #expect(backoff.delay(attempt: 50, random: .max) <= .seconds(2))
        #expect(backoff.delay(attempt: 50, random: 0) == .seconds(1))
        let spread = Set((0..<64).map { backoff.delay(attempt: 4, random: UInt64($0) &* 0x9E37_79B9_7F4A_7C15) })
        #expect(spread.count > 32)
    }

    /// CLUSTER SLOTS becomes a complete map, empty hosts meaning the node asked.
    @Test func slotMap() {
        func node(_ host: String, _ port: Int64) -> RedisReply { .array([.bulk(Array(host.utf8)), .integer(port), .bulk(Array("id".utf8))]) }
        let reply = RedisReply.array([
            .array([.integer(0), .integer(5460), node("127.0.0.1", 7000)]),
            .array([.integer(5461), .integer(10922), node("", 7001), node("127.0.0.1", 7101)]),
            .array([.integer(10923), .integer(16383), node("127.0.0.1", 7002)]),
        ])
        guard let map = RedisSlotMap(clusterSlots: reply, fallbackHost: "10.0.0.1") else { Issue.record("no map"); return }
        #expect(map.isComplete)
        #expect(map.owner(of: 0)?.port == 7000)
        #expect(map.owner(of: 5461) == RedisServerAddress(host: "10.0.0.1", port: 7001))
        #expect(map.owner(of: 16383)?.port == 7002)
        #expect(map.servingMasters.count == 3)
        #expect(RedisSlotMap(clusterSlots: .array([.array([.integer(0), .integer(20000), node("h", 1)])]), fallbackHost: "") == nil)
    }
}
