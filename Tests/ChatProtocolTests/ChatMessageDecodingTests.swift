import Foundation
import Testing

@testable import ChatProtocol

/// Decoding well-formed messages: every field, defaults, nulls, escapes, numbers.
struct ChatMessageDecodingTests {
    /// A message with every field decodes each one with its JSON type.
    @Test func decodesEveryField() throws {
        let json = #"""
            {"type":"msg","text":"hello","sender":"alice","room":"lobby","id":"ID-1","seq":42,
             "ts":1764480001234,"peer":"P-1","to":"bob","since":41,"before":100,"limit":50,
             "members":["alice","bob"],"code":"bad-room","replay":true}
            """#
        let message = try decode(json)
        #expect(
            message
                == ChatMessage(
                    type: "msg", text: "hello", sender: "alice", room: "lobby", id: "ID-1", seq: 42,
                    ts: 1_764_480_001_234, peer: "P-1", to: "bob", since: 41, before: 100, limit: 50,
                    members: ["alice", "bob"], code: "bad-room", replay: true))
    }

    /// A message with only `type` gets empty `text` and `sender` and no optional fields.
    @Test func appliesDefaultsToMinimalMessage() throws {
        let message = try decode(#"{"type":"presence"}"#)
        #expect(message == ChatMessage(type: "presence"))
        #expect(message.text == "")
        #expect(message.sender == "")
        #expect(message.room == nil)
        #expect(message.roomOrDefault == "lobby")
    }

    /// `null` in any known field other than `type` means the field is absent.
    @Test func treatsNullAsAbsent() throws {
        let json = #"""
            {"type":"x","text":null,"sender":null,"room":null,"id":null,"seq":null,"ts":null,"peer":null,
             "to":null,"since":null,"before":null,"limit":null,"members":null,"code":null,"replay":null}
            """#
        #expect(try decode(json) == ChatMessage(type: "x"))
    }

    /// Every JSON escape, including a surrogate pair, decodes to the right characters.
    @Test func decodesEveryEscape() throws {
        let json = #"{"type":"x","text":"q\" b\\ s\/ \b\f\n\r\t \u0041\u00e9\u00E9\u20ac\ud83d\ude00\u0000"}"#
        let message = try decode(json)
        #expect(message.text == "q\" b\\ s/ \u{8}\u{C}\n\r\t Aéé€😀\u{0}")
    }

    /// Escapes at the very start and end of a string and back to back are decoded.
    @Test func decodesEscapesAtStringEdges() throws {
        #expect(try decode(#"{"type":"x","text":"\n"}"#).text == "\n")
        #expect(try decode(#"{"type":"x","text":"\\\\"}"#).text == "\\\\")
        #expect(try decode(#"{"type":"x","text":"\"\""}"#).text == "\"\"")
        #expect(try decode(#"{"type":"x","text":"a\u0062c"}"#).text == "abc")
    }

    /// Raw non-ASCII UTF-8 (2, 3 and 4 byte characters) is kept as written.
    @Test func keepsRawUTF8() throws {
        let message = try decode(#"{"type":"x","text":"é 日本 🎉","sender":"ça","members":["ü"]}"#)
        #expect(message.text == "é 日本 🎉")
        #expect(message.sender == "ça")
        #expect(message.members == ["ü"])
    }

    /// An escaped key is matched after unescaping, and a key that merely starts like a known one is unknown.
    @Test func matchesKeysAfterUnescaping() throws {
        let message = try decode(#"{"\u0074ype":"msg","types":5,"tex":1,"text\u0000":2,"t\u0065xt":"hi"}"#)
        #expect(message.type == "msg")
        #expect(message.text == "hi")
    }

    /// Integers at the edges of Int64, zero and negative zero decode exactly.
    @Test(arguments: [
        ("0", Int64(0)), ("-0", 0), ("7", 7), ("-1", -1), ("9223372036854775807", .max),
        ("-9223372036854775808", .min), ("1764480001234", 1_764_480_001_234),
    ])
    func decodesIntegers(literal: String, value: Int64) throws {
        let message = try decode(#"{"type":"x","seq":\#(literal),"ts":\#(literal),"since":\#(literal),"before":\#(literal)}"#)
        #expect(message.seq == value)
        #expect(message.ts == value)
        #expect(message.since == value)
        #expect(message.before == value)
    }

    /// `limit` decodes as an Int.
    @Test func decodesLimit() throws {
        #expect(try decode(#"{"type":"history","limit":200}"#).limit == 200)
    }

    /// `replay` accepts both booleans.
    @Test func decodesBooleans() throws {
        #expect(try decode(#"{"type":"x","replay":true}"#).replay == true)
        #expect(try decode(#"{"type":"x","replay":false}"#).replay == false)
    }

    /// `members` may be empty.
    @Test func decodesEmptyMembers() throws {
        #expect(try decode(#"{"type":"roster","members":[ ]}"#).members == [])
    }

    /// Whitespace is allowed between every token and around the object.
    @Test func allowsWhitespaceEverywhere() throws {
        let json = " \r\n\t{ \n\"type\" \t: \r\"x\" , \"members\" : [ \"a\" , \"b\" ] , \"seq\" : 5 } \n\t\r "
        #expect(try decode(json) == ChatMessage(type: "x", seq: 5, members: ["a", "b"]))
    }

    /// Unknown fields of every JSON type, nested ones included, are skipped and the fields after them still read.
    @Test func skipsUnknownFields() throws {
        let json = #"""
            {"a":{"b":[1,-2.5e-3,{"c":"}]{[\""},true,false,null,[]],"d":{}},"type":"msg",
             "e":"\u00e9\ud83d\ude00\\","f":123.456E+7,"g":[[[["x"]]]],"text":"after"}
            """#
        let message = try decode(json)
        #expect(message.type == "msg")
        #expect(message.text == "after")
    }

    /// With a duplicate key the last value wins, also when an earlier one had the wrong type.
    @Test func lastDuplicateKeyWins() throws {
        #expect(try decode(#"{"type":"a","type":"b"}"#).type == "b")
        #expect(try decode(#"{"type":"x","seq":"bad","seq":5}"#).seq == 5)
        #expect(try decode(#"{"type":"x","text":"a","text":null}"#).text == "")
        #expect(decodeError(#"{"type":"x","seq":5,"seq":"bad"}"#) == .badField("seq"))
    }

    /// Nesting up to the depth limit is skipped; one level more is bad-json.
    @Test func enforcesNestingLimit() {
        // The message object is level 1, so an unknown value can open levels 2...64.
        let allowed = ChatLimits.maxNestingDepth - 1
        func nested(_ levels: Int) -> String {
            #"{"type":"x","deep":"# + String(repeating: "[", count: levels) + String(repeating: "]", count: levels) + "}"
        }
        #expect(decodeError(nested(allowed)) == nil)
        #expect(decodeError(nested(allowed + 1)) == .badJSON)
        let nestedObjects = #"{"type":"x","deep":"# + String(repeating: #"{"k":"#, count: allowed + 1) + "1"
            + String(repeating: "}", count: allowed + 1) + "}"
        #expect(decodeError(nestedObjects) == .badJSON)
    }

    /// Hostile nesting far beyond the limit is rejected without exhausting the stack.
    @Test func survivesHugeNesting() {
        let json = #"{"type":"x","deep":"# + String(repeating: "[", count: 200_000)
        #expect(decodeError(json) == .badJSON)
    }

    /// Any byte collection decodes: Array, ArraySlice, Data, String.UTF8View and a non-contiguous one.
    @Test func decodesFromAnyCollection() throws {
        let json = #"xx{"type":"x","text":"y"}"#
        let expected = ChatMessage(type: "x", text: "y")
        let all = bytes(json)
        #expect(try ChatMessage.decode(all[2...]) == expected)
        #expect(try ChatMessage.decode(Data(all.dropFirst(2))) == expected)
        #expect(try ChatMessage.decode(json.utf8.dropFirst(2)) == expected)
        #expect(try ChatMessage.decode(all.dropFirst(2).lazy.map { $0 }) == expected)
        let fromRawBuffer = try all.withUnsafeBytes { buffer in
            try ChatMessage.decode(UnsafeRawBufferPointer(rebasing: buffer[2...]))
        }
        #expect(fromRawBuffer == expected)
    }

    /// A bad-field failure reports the message's string `id`, so the error reply can carry it.
    @Test func reportsIDOnBadField() throws {
        var id: String?
        let json = bytes(#"{"type":"msg","id":"M-1","seq":"x"}"#)
        json.withUnsafeBytes { buffer in
            #expect(throws: ChatDecodeError.badField("seq")) { try ChatMessage.decode(buffer, idOnFailure: &id) }
            return
        }
        #expect(id == "M-1")
    }

    /// Without a string `id`, or when the JSON itself is bad, no id is reported.
    @Test func reportsNoIDWhenUnavailable() {
        for json in [#"{"type":"msg","id":5}"#, #"{"type":"msg","id":"M-1","#, #"{"id":"M-1","text":1} x"#] {
            var id: String?
            bytes(json).withUnsafeBytes { buffer in
                _ = try? ChatMessage.decode(buffer, idOnFailure: &id)
            }
            #expect(id == nil, "\(json)")
        }
    }
}
