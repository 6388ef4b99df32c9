import Testing

@testable import ChatProtocol
import SplitMix

/// A message may be split across feeds at any byte; the result must never depend on where.
struct ChatStreamDecoderSplitTests {
    /// A stream exercising everything a split can land in: strings, every escape kind, 2/3/4-byte
    /// UTF-8, nested unknown values, CRLF, back-to-back objects, a malformed object and a garbage line.
    static let stream: [UInt8] = bytes(
        #"{"type":"msg","room":"lobby","text":"héllo 日本 🎉 \"q\" \\ \u00e9\ud83d\ude00 }{","id":"A","seq":1}"# + "\n"
            + #"{"type":"roster","members":["a","b"],"x":{"y":[{"z":"}"}]}}"# + "\r\n"
            + #"{"type":"a"}{"type":"b","replay":true}"# + "\n"
            + "not json\n"
            + #"{"type":"c","seq":1.5,"id":"Z"}"# + "\n"
            + #"  {"type":"end","ts":-7}"# + "\n")

    static let expected: [ChatStreamEvent] = [
        .message(ChatMessage(type: "msg", text: "héllo 日本 🎉 \"q\" \\ é😀 }{", room: "lobby", id: "A", seq: 1)),
        .message(ChatMessage(type: "roster", members: ["a", "b"])),
        .message(ChatMessage(type: "a")),
        .message(ChatMessage(type: "b", replay: true)),
        .malformed(.badJSON, id: nil),
        .malformed(.badField("seq"), id: "Z"),
        .message(ChatMessage(type: "end", ts: -7)),
    ]

    /// The whole stream in one feed gives the expected events.
    @Test func decodesWholeStream() {
        #expect(streamEvents([Self.stream]) == Self.expected)
    }

    /// Splitting into two feeds at every possible position gives the same events.
    @Test func splitsAtEveryPosition() {
        for offset in 0...Self.stream.count {
            let events = streamEvents(split(Self.stream, at: [offset]))
            #expect(events == Self.expected, "split at \(offset)")
        }
    }

    /// Splitting into three feeds at every pair of positions gives the same events.
    @Test func splitsAtEveryPairOfPositions() {
        let stream = Array(Self.stream.prefix(120))
        let reference = streamEvents([stream])
        #expect(reference.count == 1, "the prefix must hold one complete message and a partial one")
        var mismatches = 0
        for first in 0...stream.count {
            for second in first...stream.count where streamEvents(split(stream, at: [first, second])) != reference {
                mismatches += 1
            }
        }
        #expect(mismatches == 0)
    }

    /// Feeding one byte at a time gives the same events.
    @Test func decodesByteByByte() {
        #expect(streamEvents(Self.stream.map { [$0] }) == Self.expected)
    }

    /// Random chunk sizes from fixed seeds, empty chunks included, give the same events.
    @Test(arguments: [1, 2, 3, 42, 1234] as [UInt64])
    func decodesRandomChunks(seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        for _ in 0..<50 {
            var offsets: [Int] = []
            var position = 0
            while true {
                position += Int.random(in: 0...17, using: &generator)
                guard position < Self.stream.count else { break }
                offsets.append(position)
            }
            #expect(streamEvents(split(Self.stream, at: offsets)) == Self.expected)
        }
    }

    /// Every way of splitting a 2, 3 or 4-byte character across feeds is accepted.
    @Test(arguments: ["é", "€", "日", "🎉", "\u{10FFFF}", "\u{80}", "\u{7FF}", "\u{800}", "\u{FFFF}", "\u{10000}"])
    func acceptsCharacterSplitAnywhere(character: String) {
        let input = bytes(#"{"type":"a","text":"\#(character)"}"#)
        for offset in 0...input.count {
            #expect(streamEvents(split(input, at: [offset])) == [.message(ChatMessage(type: "a", text: character))])
        }
    }

    /// A split exactly between `}` and LF completes the message with the brace, before the LF arrives.
    @Test func completesBeforeTheLineFeed() {
        var decoder = ChatStreamDecoder()
        #expect(decoder.feed(bytes(#"{"type":"a"}"#)) == [.message(ChatMessage(type: "a"))])
        #expect(decoder.feed(bytes("\n")) == [])
        #expect(decoder.feed(bytes(#"{"type":"b"}"# + "\n")) == [.message(ChatMessage(type: "b"))])
    }

    /// Empty feeds change nothing, wherever they fall.
    @Test func ignoresEmptyFeeds() {
        let chunks = Self.stream.flatMap { [[], [$0], []] }
        #expect(streamEvents(chunks) == Self.expected)
    }

    /// Byte-by-byte feeding of large messages takes linear time: the scan resumes instead of restarting.
    @Test func byteByByteIsLinear() {
        let object = objectOfSize(ChatLimits.maxObjectBytes)
        let input = Array(repeating: object + [0x0A], count: 4).flatMap { $0 }
        var decoder = ChatStreamDecoder()
        var messages = 0
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            input.withUnsafeBytes { buffer in
                for index in 0..<buffer.count {
                    decoder.feed(UnsafeRawBufferPointer(rebasing: buffer[index..<(index + 1)])) { event in
                        if case .message = event { messages += 1 }
                    }
                }
            }
        }
        #expect(messages == 4)
        // Rescanning the buffered bytes on each feed would take billions of steps here
        // (minutes); the linear scan takes well under a second even in a debug build.
        #expect(elapsed < .seconds(10))
    }
}
