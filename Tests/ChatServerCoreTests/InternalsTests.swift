import Testing

@testable import ChatServerCore

@Suite struct InternalsTests {
    /// The bounded queue keeps the newest elements, counts the dropped ones, and empties on removeAll.
    @Test func boundedQueueDropsOldest() {
        var queue = BoundedQueue<Int>(capacity: 3)
        for value in 1...10 { queue.append(value) }
        #expect(queue.count == 3)
        #expect(queue.droppedCount == 7)
        #expect(Array(queue.removeAll()) == [8, 9, 10])
        #expect(queue.isEmpty)
        queue.append(11)
        #expect(Array(queue.removeAll()) == [11])
    }

    /// Generated peer ids are valid version-4 UUIDs in upper case.
    @Test func randomPeerIDsAreVersion4UUIDs() {
        for _ in 0..<100 {
            let peer = RandomPeerID.make()
            let characters = Array(peer)
            #expect(peer.count == 36)
            #expect(characters[14] == "4")
            #expect("89AB".contains(characters[19]))
            #expect(peer == peer.uppercased())
        }
        #expect(RandomPeerID.make() != RandomPeerID.make())
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
