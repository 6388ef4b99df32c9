import Testing

@testable import ChatProtocol

/// Fatal framing errors: the size limit, invalid UTF-8, and the bounded buffer.
struct ChatStreamDecoderLimitTests {
    /// An object of 65535 bytes plus LF (65536 in all) is accepted, whole or in chunks.
    @Test func acceptsLargestMessage() throws {
        let line = objectOfSize(65_535) + [0x0A]
        #expect(line.count == ChatLimits.maxStreamMessageBytes)
        let expected: [ChatStreamEvent] = [.message(try ChatMessage.decode(line.dropLast()))]
        #expect(streamEvents([line]) == expected)
        #expect(streamEvents(split(line, at: Array(stride(from: 1000, to: line.count, by: 1000)))) == expected)
        #expect(streamEvents(split(line, at: [65_534])) == expected)
        #expect(streamEvents(split(line, at: [65_535])) == expected)
    }

    /// An object of 65536 bytes (65537 with LF) is fatal too-large, even though the LF has not arrived.
    @Test func rejectsObjectOneByteTooLong() {
        let object = objectOfSize(65_536)
        #expect(streamEvents([object + [0x0A]]) == [.fatal(.tooLarge)])
        #expect(streamEvents([object]) == [.fatal(.tooLarge)])
        #expect(streamEvents(split(object, at: [65_535])) == [.fatal(.tooLarge)])
    }

    /// An object of 65537 bytes is fatal too-large.
    @Test func rejectsObjectTwoBytesTooLong() {
        #expect(streamEvents([objectOfSize(65_537) + [0x0A]]) == [.fatal(.tooLarge)])
    }

    /// Maximal objects back to back without LF are each within the limit.
    @Test func acceptsMaximalObjectsBackToBack() {
        let object = objectOfSize(65_535)
        let events = streamEvents([object + object, object])
        #expect(events.count == 3)
        #expect(events.allSatisfy { if case .message = $0 { true } else { false } })
    }

    /// Messages before the oversized one are delivered; nothing after it is, and the decoder stays failed.
    @Test func stopsAfterFatalError() {
        var decoder = ChatStreamDecoder()
        let input = bytes(#"{"type":"a"}"# + "\n") + objectOfSize(70_000) + bytes(#"{"type":"b"}"#)
        #expect(decoder.feed(input) == [.message(ChatMessage(type: "a")), .fatal(.tooLarge)])
        #expect(decoder.hasFailed)
        #expect(decoder.feed(bytes(#"{"type":"c"}"# + "\n")) == [])
        #expect(decoder.feed(bytes("garbage\n")) == [])
        #expect(decoder.bufferedByteCount == 0)
    }

    /// A garbage line may be 65535 bytes before its LF; one byte more is fatal.
    @Test func limitsGarbageLines() {
        let garbage = [UInt8](repeating: UInt8(ascii: "x"), count: 65_535)
        #expect(streamEvents([garbage + bytes("\n" + #"{"type":"a"}"#)]) == [
            .malformed(.badJSON, id: nil), .message(ChatMessage(type: "a")),
        ])
        #expect(streamEvents([garbage + bytes("x\n")]) == [.malformed(.badJSON, id: nil), .fatal(.tooLarge)])
    }

    /// A custom limit applies at its own boundary.
    @Test func honoursCustomLimit() {
        let fits = objectOfSize(31)
        #expect(streamEvents([fits + [0x0A]], maxMessageBytes: 32).count == 1)
        #expect(streamEvents([objectOfSize(32)], maxMessageBytes: 32) == [.fatal(.tooLarge)])
    }

    /// However a never-ending object is fed, at most 65535 bytes are held before it fails.
    @Test(arguments: [1, 7, 1000, 65_536, 200_000])
    func keepsBufferBounded(chunkSize: Int) {
        var decoder = ChatStreamDecoder()
        var largestBuffer = 0
        var events: [ChatStreamEvent] = []
        let chunk = [UInt8](repeating: UInt8(ascii: "["), count: chunkSize)
        events += decoder.feed(bytes("{\"x\":"))
        var fed = 5
        while fed < 200_000 {
            events += decoder.feed(chunk)
            largestBuffer = max(largestBuffer, decoder.bufferedByteCount)
            fed += chunkSize
        }
        #expect(largestBuffer <= ChatLimits.maxObjectBytes)
        #expect(largestBuffer >= ChatLimits.maxObjectBytes - chunkSize || chunkSize > ChatLimits.maxObjectBytes)
        #expect(events == [.fatal(.tooLarge)])
        #expect(decoder.bufferedByteCount == 0)
    }

    /// Garbage is never buffered, however long the line grows before failing.
    @Test func neverBuffersGarbage() {
        var decoder = ChatStreamDecoder()
        for _ in 0..<10 {
            _ = decoder.feed([UInt8](repeating: UInt8(ascii: "g"), count: 5_000))
            #expect(decoder.bufferedByteCount == 0)
        }
    }

    /// Invalid UTF-8 inside a string is fatal; earlier messages still arrive, nothing later does.
    @Test(arguments: invalidUTF8Sequences)
    func rejectsInvalidUTF8InObject(sequence: [UInt8]) {
        let input = bytes(#"{"type":"a"}"# + "\n" + #"{"type":"b","text":""#) + sequence + bytes(#""}"# + "\n" + #"{"type":"c"}"#)
        let expected: [ChatStreamEvent] = [.message(ChatMessage(type: "a")), .fatal(.invalidUTF8)]
        #expect(streamEvents([input]) == expected)
        #expect(streamEvents(input.map { [$0] }) == expected)
    }

    /// Invalid UTF-8 in a garbage line, or where an object should start, is fatal too.
    @Test(arguments: invalidUTF8Sequences)
    func rejectsInvalidUTF8OutsideObjects(sequence: [UInt8]) {
        let inGarbage = bytes("junk ") + sequence + bytes("\n" + #"{"type":"a"}"#)
        #expect(streamEvents([inGarbage]) == [.malformed(.badJSON, id: nil), .fatal(.invalidUTF8)])
        let atLineStart = sequence + bytes(" \n" + #"{"type":"a"}"#)
        let events = streamEvents([atLineStart])
        #expect(events.last == .fatal(.invalidUTF8))
        #expect(!events.contains(.message(ChatMessage(type: "a"))))
    }

    /// Invalid UTF-8 outside a string but inside an object is fatal, not just bad-json.
    @Test func rejectsInvalidUTF8BetweenTokens() {
        let input = bytes(#"{"type":"a","#) + [0xFF] + bytes(#""x":1}"#)
        #expect(streamEvents([input]) == [.fatal(.invalidUTF8)])
    }

    /// Valid non-ASCII outside strings is a framing-level success but a bad-json message.
    @Test func reportsValidNonASCIIOutsideStringsAsBadJSON() {
        let input = bytes(#"{"type":"a","x":é}"# + "\n" + #"{"type":"b"}"#)
        #expect(streamEvents([input]) == [.malformed(.badJSON, id: nil), .message(ChatMessage(type: "b"))])
    }

    /// Framing errors close the connection with PROTOCOL_ERROR.
    @Test func framingErrorsMapToProtocolError() {
        #expect(ChatFramingError.tooLarge.closeCode == .protocolError)
        #expect(ChatFramingError.invalidUTF8.closeCode.rawValue == 0x1)
    }
}
