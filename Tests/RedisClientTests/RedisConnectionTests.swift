import RedisClient
import Testing

/// The sans-IO command connection: hiredis's reader behind our limits, replies matched in order.
@Suite struct RedisConnectionTests {
    private func feed(_ text: String, limits: RedisLimits = RedisLimits(), commands: Int = 1,
                      chunk: Int? = nil) -> (replies: [RedisReply], failure: RedisFailure?) {
        let connection = RedisConnection<Int>(limits: limits)
        for index in 0..<commands { #expect(connection.send(RedisCommand("PING"), tag: index) == nil) }
        var replies: [RedisReply] = []
        var tags: [Int] = []
        let bytes = Array(text.utf8)
        let size = chunk ?? max(1, bytes.count)
        var failure: RedisFailure?
        var offset = 0
        while offset < bytes.count, failure == nil {
            let piece = Array(bytes[offset..<min(bytes.count, offset + size)])
            failure = connection.receive(piece) { tag, reply in
                tags.append(tag)
                replies.append(reply)
            }
            offset += size
        }
        #expect(tags == Array(0..<tags.count))
        return (replies, failure)
    }

    /// Each RESP2 type parses to its value.
    @Test func parsesEveryType() {
        let result = feed("+OK\r\n-ERR wrong\r\n:-42\r\n$5\r\nhello\r\n$-1\r\n*-1\r\n*0\r\n$0\r\n\r\n", commands: 8)
        #expect(result.failure == nil)
        #expect(result.replies == [.status("OK"), .error("ERR wrong"), .integer(-42), .bulk(Array("hello".utf8)),
                                   .null, .null, .array([]), .bulk([])])
    }

    /// A bulk string may hold CRLF and any byte: its length decides, not the line end.
    @Test func bulkStringsAreBinarySafe() {
        let result = feed("$8\r\na\r\nb\r\n\0\u{7f}\r\n")
        #expect(result.replies == [.bulk([97, 13, 10, 98, 13, 10, 0, 127])])
    }

    /// Nested arrays (a stream entry's shape) come out as nested values.
    @Test func nestedArrays() {
        let result = feed("*2\r\n*2\r\n$3\r\n1-0\r\n*2\r\n$1\r\ne\r\n$2\r\nhi\r\n*0\r\n")
        #expect(result.replies == [.array([.array([.bulk(Array("1-0".utf8)), .array([.bulk([101]), .bulk(Array("hi".utf8))])]), .array([])])])
    }

    /// Replies split byte by byte and replies coalesced in one read give the same values.
    @Test func splitAndCoalescedReplies() {
        let text = "*3\r\n:1\r\n$3\r\nabc\r\n*1\r\n+x\r\n:7\r\n$2\r\nzz\r\n"
        let whole = feed(text, commands: 3)
        let split = feed(text, commands: 3, chunk: 1)
        let threes = feed(text, commands: 3, chunk: 3)
        #expect(whole.replies.count == 3)
        #expect(whole.replies == split.replies)
        #expect(whole.replies == threes.replies)
        #expect(whole.replies[1] == .integer(7))
    }

    /// A byte that starts no RESP2 type (a RESP3 push `>` included) breaks the connection.
    @Test func malformedReplyBreaksTheConnection() {
        for text in ["?what\r\n", ">2\r\n+a\r\n+b\r\n", ":12x\r\n", "$abc\r\n", "*-5\r\n", "$-2\r\n"] {
            let result = feed(text)
            guard case .protocolViolation? = result.failure else {
                Issue.record("\(text.debugDescription) gave \(String(describing: result.failure))")
                continue
            }
            #expect(result.replies.isEmpty)
        }
    }

    /// Arrays nested deeper than hiredis's 7 levels are refused, 7 are accepted.
    @Test func nestingDepthIsBounded() {
        let seven = String(repeating: "*1\r\n", count: RedisLimits.maxReplyDepth) + ":1\r\n"
        #expect(feed(seven).failure == nil)
        let nine = String(repeating: "*1\r\n", count: RedisLimits.maxReplyDepth + 2) + ":1\r\n"
        #expect(feed(nine).failure != nil)
    }

    /// An array header announcing more elements than the limit fails before anything is built.
    @Test func arrayElementLimit() {
        let limits = RedisLimits(maxReplyElements: 4)
        #expect(feed("*4\r\n:1\r\n:2\r\n:3\r\n:4\r\n", limits: limits).failure == nil)
        let result = feed("*2000000000\r\n:1\r\n", limits: limits)
        guard case .protocolViolation(let why)? = result.failure else { Issue.record("no failure"); return }
        #expect(why.contains("limit"))
    }

    /// A bulk string larger than the reply limit fails while it is still arriving: the bytes
    /// buffered for an incomplete reply count, so a lying length cannot make memory grow.
    @Test func replyByteLimitWhileIncomplete() {
        let limits = RedisLimits(maxReplyBytes: 1024)
        #expect(feed("$1000\r\n" + String(repeating: "a", count: 1000) + "\r\n", limits: limits).failure == nil)
        let result = feed("$999999999\r\n" + String(repeating: "a", count: 1100), limits: limits, chunk: 100)
        guard case .protocolViolation(let why)? = result.failure else { Issue.record("no failure"); return }
        #expect(why.contains("limit"))
        // Many small elements add up too.
        let many = "*100\r\n" + String(repeating: "$20\r\n" + String(repeating: "b", count: 20) + "\r\n", count: 100)
        #expect(feed(many, limits: limits).failure != nil)
    }

    /// A reply when no command waits is a protocol violation, not a reply to a later command.
    @Test func unaskedReplyBreaksTheConnection() {
        let result = feed("+OK\r\n+EXTRA\r\n")
        #expect(result.replies == [.status("OK")])
        #expect(result.failure != nil)
    }

    /// The pending-command and outbound-byte limits refuse one command each, and reset()
    /// returns every unanswered tag, in order, for its failure.
    @Test func sendingLimitsAndReset() {
        let connection = RedisConnection<Int>(limits: RedisLimits(maxPendingCommands: 3, maxOutboundBytes: 1 << 20))
        for index in 0..<3 { #expect(connection.send(RedisCommand("GET", "k"), tag: index) == nil) }
        guard case .limitExceeded? = connection.send(RedisCommand("GET", "k"), tag: 9) else { Issue.record("not refused"); return }
        #expect(connection.pendingCount == 3)
        #expect(connection.reset() == [0, 1, 2])
        #expect(connection.pendingCount == 0)
        #expect(connection.outbound.isEmpty)

        let small = RedisConnection<Int>(limits: RedisLimits(maxOutboundBytes: 64))
        #expect(small.send(RedisCommand("SET", "k", String(repeating: "v", count: 100)), tag: 0) == nil)
        guard case .limitExceeded? = small.send(RedisCommand("GET", "k"), tag: 1) else { Issue.record("not refused"); return }
    }

    /// Commands are encoded as RESP arrays of bulk strings, binary-safe, with lengths of several digits.
    @Test func commandEncoding() {
        let connection = RedisConnection<Int>()
        _ = connection.send(RedisCommand(arguments: [Array("SET".utf8), Array("k".utf8), [0, 13, 10]]), tag: 0)
        #expect(connection.outbound.bytes == Array("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$3\r\n".utf8) + [0, 13, 10] + [13, 10])
        let long = RedisConnection<Int>()
        let arguments = [Array("RPUSH".utf8), []] + (0..<10).map { Array(repeating: UInt8(ascii: "x"), count: $0 * 111) }
        _ = long.send(RedisCommand(arguments: arguments), tag: 0)
        var expected = Array("*12\r\n$5\r\nRPUSH\r\n$0\r\n\r\n$0\r\n\r\n".utf8)
        for count in 1..<10 { expected += Array("$\(count * 111)\r\n".utf8) + Array(repeating: UInt8(ascii: "x"), count: count * 111) + [13, 10] }
        #expect(long.outbound.bytes == expected)
    }

    /// A delivery that resets the connection (its owner dropped it) ends that parse: the rest
    /// of the bytes answer nobody, and the connection starts clean.
    @Test func resetDuringDelivery() {
        let connection = RedisConnection<Int>()
        _ = connection.send(RedisCommand("PING"), tag: 0)
        _ = connection.send(RedisCommand("PING"), tag: 1)
        var delivered: [Int] = []
        var orphans: [Int] = []
        let failure = connection.receive(Array("+A\r\n+B\r\n".utf8)) { tag, _ in
            delivered.append(tag)
            orphans = connection.reset()
        }
        #expect(failure == nil)
        #expect(delivered == [0])
        #expect(orphans == [1])
        _ = connection.send(RedisCommand("PING"), tag: 2)
        var after: [Int] = []
        #expect(connection.receive(Array("+PONG\r\n".utf8)) { tag, _ in after.append(tag) } == nil)
        #expect(after == [2])
    }
}
