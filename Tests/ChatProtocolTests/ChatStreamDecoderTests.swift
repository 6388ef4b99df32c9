import Testing

@testable import ChatProtocol

/// Stream framing: how objects are delimited and how malformed input is reported.
struct ChatStreamDecoderTests {
    /// One object followed by LF yields one message.
    @Test func decodesOneLine() {
        #expect(streamEvents([bytes(#"{"type":"a"}"# + "\n")]) == [.message(ChatMessage(type: "a"))])
    }

    /// An object without LF is complete as soon as its closing brace arrives.
    @Test func completesAtClosingBrace() {
        var decoder = ChatStreamDecoder()
        #expect(decoder.feed(bytes(#"{"type":"a"}"#)) == [.message(ChatMessage(type: "a"))])
        #expect(decoder.bufferedByteCount == 0)
    }

    /// Objects back to back without LF are separated by brace depth.
    @Test func splitsBackToBackObjects() {
        let events = streamEvents([bytes(#"{"type":"a"}{"type":"b"}{"type":"c","x":{"y":{}}}"#)])
        #expect(events == [.message(ChatMessage(type: "a")), .message(ChatMessage(type: "b")), .message(ChatMessage(type: "c"))])
    }

    /// Spaces, tabs, CR and LF between objects are skipped, also before the first.
    @Test func skipsWhitespaceBetweenObjects() {
        let events = streamEvents([bytes(" \r\n\t{\"type\":\"a\"}\r\n\r\n  \t{\"type\":\"b\"} \n\n")])
        #expect(events == [.message(ChatMessage(type: "a")), .message(ChatMessage(type: "b"))])
    }

    /// An object spread over several lines (LF between tokens) is one message.
    @Test func acceptsPrettyPrintedObject() {
        let events = streamEvents([bytes("{\n  \"type\": \"a\",\n  \"members\": [\n    \"x\"\n  ]\n}\n")])
        #expect(events == [.message(ChatMessage(type: "a", members: ["x"]))])
    }

    /// Braces, quotes and backslashes inside strings do not end the object early.
    @Test func ignoresBracesInsideStrings() {
        let input = #"{"type":"a","text":"}{"}{"type":"b","text":"\"}"}{"type":"c","text":"\\"}{"type":"d","text":"\\\"}{"}"#
        let events = streamEvents([bytes(input)])
        #expect(events == [
            .message(ChatMessage(type: "a", text: "}{")), .message(ChatMessage(type: "b", text: "\"}")),
            .message(ChatMessage(type: "c", text: "\\")), .message(ChatMessage(type: "d", text: "\\\"}{")),
        ])
    }

    /// A complete object that is not a valid message is reported and the next one still decodes.
    @Test func reportsMalformedObjectAndContinues() {
        let input = bytes(#"{"type":"a","seq":"x","id":"M-1"}"# + "\n" + #"{"type" 1}"# + "\n{}\n" + #"{"type":"b"}"# + "\n")
        #expect(streamEvents([input]) == [
            .malformed(.badField("seq"), id: "M-1"), .malformed(.badJSON, id: nil), .malformed(.badField("type"), id: nil),
            .message(ChatMessage(type: "b")),
        ])
    }

    /// A garbage line yields one bad-json and decoding resumes after its LF.
    @Test func reportsGarbageLineOnce() {
        let input = bytes("hello world\n" + #"{"type":"a"}"# + "\n")
        #expect(streamEvents([input]) == [.malformed(.badJSON, id: nil), .message(ChatMessage(type: "a"))])
    }

    /// An object inside a garbage line is discarded with the line, not decoded.
    @Test func discardsObjectsInsideGarbageLine() {
        let input = bytes(#"oops {"type":"hidden"}"# + "\n" + #"{"type":"a"}"#)
        #expect(streamEvents([input]) == [.malformed(.badJSON, id: nil), .message(ChatMessage(type: "a"))])
    }

    /// Bytes after an object on the same line form a garbage line of their own.
    @Test func reportsTrailingGarbageAfterObject() {
        let input = bytes(#"{"type":"a"}}junk{"type":"lost"}"# + "\n" + #"{"type":"b"}"# + "\n")
        #expect(streamEvents([input]) == [
            .message(ChatMessage(type: "a")), .malformed(.badJSON, id: nil), .message(ChatMessage(type: "b")),
        ])
    }

    /// A garbage line split over many feeds is still reported only once.
    @Test func reportsSplitGarbageOnce() {
        let chunks = bytes("garbage line\n" + #"{"type":"a"}"#).map { [$0] }
        #expect(streamEvents(chunks) == [.malformed(.badJSON, id: nil), .message(ChatMessage(type: "a"))])
    }

    /// Several garbage lines in a row give one error each.
    @Test func reportsEachGarbageLine() {
        let events = streamEvents([bytes("a\nb\n]\n\n" + #"{"type":"x"}"#)])
        #expect(events == [
            .malformed(.badJSON, id: nil), .malformed(.badJSON, id: nil), .malformed(.badJSON, id: nil),
            .message(ChatMessage(type: "x")),
        ])
    }

    /// A raw LF inside a string ends the broken frame there, so the next line still decodes.
    @Test func resyncsAfterUnterminatedString() {
        let input = bytes(#"{"type":"a","text":"unterminated"# + "\n" + #"{"type":"b"}"# + "\n")
        #expect(streamEvents([input]) == [.malformed(.badJSON, id: nil), .message(ChatMessage(type: "b"))])
        let split = streamEvents([bytes(#"{"type":"a","text":"x"#), bytes("\n"), bytes(#"{"type":"b"}"#)])
        #expect(split == [.malformed(.badJSON, id: nil), .message(ChatMessage(type: "b"))])
    }

    /// `finish` reports an unfinished object as bad-json and leaves a fresh decoder behind.
    @Test func finishReportsTruncatedObject() {
        var decoder = ChatStreamDecoder()
        #expect(decoder.feed(bytes(#"{"type":"a"}{"type":"#)) == [.message(ChatMessage(type: "a"))])
        #expect(decoder.bufferedByteCount > 0)
        #expect(decoder.finish() == [.malformed(.badJSON, id: nil)])
        #expect(decoder.bufferedByteCount == 0)
        #expect(decoder.finish() == [])
        #expect(decoder.feed(bytes(#"{"type":"b"}"#)) == [.message(ChatMessage(type: "b"))])
    }

    /// `finish` after complete messages and whitespace reports nothing.
    @Test func finishAfterCompleteMessagesIsQuiet() {
        var decoder = ChatStreamDecoder()
        _ = decoder.feed(bytes(#"{"type":"a"}"# + "\n \n"))
        #expect(decoder.finish() == [])
    }

    /// The callback form yields the same events, in order, as the array form.
    @Test func callbackFormMatchesArrayForm() {
        let input = bytes(#"{"type":"a"}"# + "x\n" + #"{"type":"b","seq":"no"}"# + "\n" + #"{"type":"c"}"#)
        var callbackDecoder = ChatStreamDecoder()
        var collected: [ChatStreamEvent] = []
        input.withUnsafeBytes { buffer in callbackDecoder.feed(buffer) { collected.append($0) } }
        #expect(collected == streamEvents([input]))
        #expect(collected.count == 4)
    }

    /// Input that is not contiguous in memory is accepted too.
    @Test func acceptsNonContiguousInput() {
        var decoder = ChatStreamDecoder()
        let input = bytes(#"{"type":"a"}"#).lazy.map { $0 }
        #expect(decoder.feed(input) == [.message(ChatMessage(type: "a"))])
    }
}
