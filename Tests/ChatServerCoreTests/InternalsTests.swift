import SplitMix
import Testing

@testable import ChatServerCore

@Suite struct InternalsTests {
    private static func payload(_ text: String) -> SharedPayload { SharedPayload(bytes: Array(text.utf8)) }

    private static func texts(_ payloads: [SharedPayload]) -> [String] { payloads.map { String(decoding: $0.bytes, as: UTF8.self) } }

    /// The presence backlog keeps the newest events within its count, counts the dropped ones, and empties on removeAll.
    @Test func presenceBacklogDropsOldestBeyondCount() {
        var backlog = PresenceBacklog(countLimit: 3, byteLimit: 1 << 20)
        for value in 1...10 { backlog.append(Self.payload("\(value)"), key: .status(nickKey: "user\(value)")) }
        #expect(backlog.count == 3)
        #expect(backlog.droppedCount == 7)
        #expect(Self.texts(backlog.removeAll()) == ["8", "9", "10"])
        #expect(backlog.isEmpty && backlog.byteCount == 0)
        backlog.append(Self.payload("11"), key: .roster(room: "lobby"))
        #expect(Self.texts(backlog.removeAll()) == ["11"])
    }

    /// The backlog's byte bound drops the oldest too, but always keeps the newest event.
    @Test func presenceBacklogDropsOldestBeyondBytes() {
        var backlog = PresenceBacklog(countLimit: 100, byteLimit: 10)
        backlog.append(Self.payload("aaaa"), key: .roster(room: "a"))
        backlog.append(Self.payload("bbbb"), key: .roster(room: "b"))
        backlog.append(Self.payload("cccc"), key: .roster(room: "c"))
        #expect(backlog.byteCount == 8 && backlog.droppedCount == 1)
        backlog.append(Self.payload(String(repeating: "x", count: 50)), key: .roster(room: "d"))
        #expect(backlog.count == 1 && backlog.byteCount == 50)
        #expect(Self.texts(backlog.removeAll()) == [String(repeating: "x", count: 50)])
    }

    /// A newer event with the same key supersedes the waiting one, which neither counts nor is sent;
    /// thousands of superseded events leave the backlog small.
    @Test func presenceBacklogKeepsNewestPerKey() {
        var backlog = PresenceBacklog(countLimit: 1000, byteLimit: 1 << 20)
        backlog.append(Self.payload("roster 1"), key: .roster(room: "lobby"))
        backlog.append(Self.payload("alice away"), key: .status(nickKey: "alice"))
        for round in 2...5000 { backlog.append(Self.payload("roster \(round)"), key: .roster(room: "lobby")) }
        backlog.append(Self.payload("alice online"), key: .status(nickKey: "alice"))
        #expect(backlog.count == 2 && backlog.droppedCount == 0)
        #expect(backlog.byteCount == "roster 5000".utf8.count + "alice online".utf8.count)
        #expect(Self.texts(backlog.removeAll()) == ["roster 5000", "alice online"])
    }

    /// Joined rooms keep their join order, answer membership, and ignore a second insert.
    @Test func joinedRoomsKeepOrder() {
        var rooms = JoinedRooms()
        let inserted = [rooms.insert("lobby"), rooms.insert("dev"), rooms.insert("ops"), rooms.insert("dev")]
        #expect(inserted == [true, true, true, false])
        rooms.remove("dev")
        #expect(rooms.array == ["lobby", "ops"] && rooms.contains("ops") && !rooms.contains("dev") && rooms.count == 2)
        rooms.removeAll()
        #expect(rooms.isEmpty && !rooms.contains("lobby"))
    }

    /// Idle rooms come out longest idle first; a room that got members again is skipped; churn stays compact.
    @Test func idleRoomsPopLongestIdleFirst() {
        var idle = IdleRooms()
        idle.insert("a")
        idle.insert("b")
        idle.insert("c")
        idle.remove("a")
        idle.insert("a")
        #expect(idle.count == 3)
        #expect(idle.popOldest() == "b")
        #expect(idle.popOldest() == "c")
        #expect(idle.popOldest() == "a")
        #expect(idle.popOldest() == nil)
        for round in 0..<10_000 {
            idle.insert("room\(round % 7)")
            idle.remove("room\(round % 7)")
        }
        #expect(idle.count == 0 && idle.popOldest() == nil)
    }

    /// Generated peer ids are valid version-4 UUIDs in upper case.
    @Test func randomPeerIDsAreVersion4UUIDs() {
        var random = SplitMix64(seed: 7)
        for _ in 0..<100 {
            let peer = RandomPeerID.make(using: &random)
            let characters = Array(peer)
            #expect(peer.count == 36)
            #expect(characters[14] == "4")
            #expect("89AB".contains(characters[19]))
            #expect(peer == peer.uppercased())
        }
        #expect(RandomPeerID.make(using: &random) != RandomPeerID.make(using: &random))
    }

    /// The token bucket starts full, refills with time, caps at its capacity, and ignores a clock stepping back.
    @Test func tokenBucketRefills() {
        var bucket = TokenBucket(capacity: 2, refillPerSecond: 2, now: 0)
        let times: [Int64] = [0, 0, 0, 499, 500, 100, 60_000, 60_000, 60_000]
        let taken = times.map { bucket.take(now: $0) }
        #expect(taken == [true, true, false, false, true, false, true, true, false])
    }

    /// The strike window fires only when the limit is reached within the window.
    @Test func strikeWindowCountsWithinWindow() {
        var window = StrikeWindow(limit: 3, windowMilliseconds: 1_000)
        let fired = [0, 500, 1_000, 1_200, 5_000].map { window.strike(now: Int64($0)) }
        #expect(fired == [false, false, false, true, false])
    }
}
