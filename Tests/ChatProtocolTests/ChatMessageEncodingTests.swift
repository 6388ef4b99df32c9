import Foundation
import Testing

@testable import ChatProtocol

/// The fast encoder: exact output, escaping, and compatibility with Foundation's parser.
struct ChatMessageEncodingTests {
    /// A message with no optional fields still writes `type`, `sender` and `text`, and nothing else.
    @Test func writesRequiredFieldsOnly() {
        let encoded = String(decoding: ChatMessage(type: "presence").encodedDatagram(), as: UTF8.self)
        #expect(encoded == #"{"type":"presence","sender":"","text":""}"#)
    }

    /// Every field is written with its JSON type, in a fixed order.
    @Test func writesEveryField() {
        let message = ChatMessage(
            type: "msg", text: "t", sender: "s", room: "r", id: "i", seq: 1, ts: 2, peer: "p", to: "o",
            since: 3, before: 4, limit: 5, members: ["a", "b"], code: "c", replay: false)
        let expected = #"""
            {"type":"msg","room":"r","sender":"s","text":"t","id":"i","seq":1,"ts":2,"peer":"p","to":"o",\#
            "since":3,"before":4,"limit":5,"members":["a","b"],"code":"c","replay":false}
            """#
        #expect(String(decoding: message.encodedDatagram(), as: UTF8.self) == expected)
    }

    /// A line is the datagram plus exactly one LF; a datagram contains no LF even if the text has one.
    @Test func terminatesLinesOnly() {
        let message = ChatMessage(.msg, text: "two\nlines", room: "lobby")
        let line = message.encodedLine()
        let datagram = message.encodedDatagram()
        #expect(line == datagram + [0x0A])
        #expect(!datagram.contains(0x0A))
        #expect(line.filter { $0 == 0x0A }.count == 1)
    }

    /// `"`, `\` and each control character below U+0020 are escaped; the short forms are used where JSON has them.
    @Test(arguments: Array(0x00...0x1F) + [0x22, 0x5C])
    func escapesEachSpecialCharacter(value: Int) {
        let shortForms: [Int: String] = [
            0x08: #"\b"#, 0x09: #"\t"#, 0x0A: #"\n"#, 0x0C: #"\f"#, 0x0D: #"\r"#, 0x22: #"\""#, 0x5C: #"\\"#,
        ]
        let hexDigits = Array("0123456789abcdef")
        let expectedEscape = shortForms[value] ?? "\\u00\(hexDigits[value >> 4])\(hexDigits[value & 0xF])"
        let text = "a" + String(UnicodeScalar(UInt8(value))) + "b"
        let encoded = String(decoding: ChatMessage(type: "x", text: text).encodedDatagram(), as: UTF8.self)
        #expect(encoded == #"{"type":"x","sender":"","text":"a\#(expectedEscape)b"}"#)
    }

    /// DEL, `/` and non-ASCII characters are written as they are, unescaped.
    @Test func keepsOtherCharactersRaw() {
        let text = "/\u{7F} é 日本 🎉 \u{2028}"
        let encoded = ChatMessage(type: "x", text: text).encodedDatagram()
        #expect(encoded == bytes(#"{"type":"x","sender":"","text":""#) + bytes(text) + bytes(#""}"#))
    }

    /// Escaping applies to every string field, including room, ids and members.
    @Test func escapesAllStringFields() {
        let message = ChatMessage(
            type: "\"", sender: "\n", room: "\\", id: "\t", peer: "\u{1}", to: "\r", members: ["\u{1F}"], code: "\u{8}")
        let encoded = String(decoding: message.encodedDatagram(), as: UTF8.self)
        let expected = #"""
            {"type":"\"","room":"\\","sender":"\n","text":"","id":"\t","peer":"\u0001","to":"\r",\#
            "members":["\u001f"],"code":"\b"}
            """#
        #expect(encoded == expected)
    }

    /// Integers are written exactly, including the extremes of Int64.
    @Test(arguments: [Int64.min, -1, 0, 1, 9, 10, 99, 100, 1_764_480_001_234, Int64.max])
    func writesIntegers(value: Int64) {
        let encoded = String(decoding: ChatMessage(type: "x", seq: value).encodedDatagram(), as: UTF8.self)
        #expect(encoded == #"{"type":"x","sender":"","text":"","seq":\#(value)}"#)
    }

    /// Foundation's JSONSerialization parses the output back to the same values.
    @Test(arguments: sampleMessages)
    func isReadableByJSONSerialization(message: ChatMessage) throws {
        let object = try JSONSerialization.jsonObject(with: Data(message.encodedDatagram()))
        let dictionary = try #require(object as? [String: Any])
        #expect(dictionary["type"] as? String == message.type)
        #expect(dictionary["text"] as? String == message.text)
        #expect(dictionary["sender"] as? String == message.sender)
        #expect(dictionary["room"] as? String == message.room)
        #expect(dictionary["id"] as? String == message.id)
        #expect((dictionary["seq"] as? NSNumber)?.int64Value == message.seq)
        #expect((dictionary["ts"] as? NSNumber)?.int64Value == message.ts)
        #expect(dictionary["members"] as? [String] == message.members)
        #expect((dictionary["replay"] as? NSNumber)?.boolValue == message.replay)
        #expect((dictionary["stored"] as? NSNumber)?.boolValue == message.stored)
        let optionalKeyCount = [message.room, message.id, message.peer, message.to, message.code].compactMap { $0 }.count
            + [message.seq, message.ts, message.since, message.before].compactMap { $0 }.count
            + [message.limit as Any?, message.members, message.replay, message.stored].compactMap { $0 }.count
        #expect(dictionary.count == 3 + optionalKeyCount)
    }

    /// Every control character survives the trip through Foundation.
    @Test func controlCharactersSurviveFoundation() throws {
        let text = String(String.UnicodeScalarView((0..<0x20).map { Unicode.Scalar(UInt8($0)) })) + "\"\\\u{7F}"
        let object = try JSONSerialization.jsonObject(with: Data(ChatMessage(type: "x", text: text).encodedLine()))
        #expect((object as? [String: Any])?["text"] as? String == text)
    }

    /// Encoding and then decoding with the fast path gives back the same message.
    @Test(arguments: sampleMessages)
    func roundTrips(message: ChatMessage) throws {
        #expect(try ChatMessage.decode(message.encodedLine().dropLast()) == message)
        #expect(try ChatMessage.decode(message.encodedDatagram()) == message)
    }
}

/// Messages that together use every field and every kind of character.
let sampleMessages: [ChatMessage] = [
    ChatMessage(type: "presence"),
    messageWithEveryField,
    .join(nick: "alice", peer: "6F1C2B3A-0000-4000-8000-000000000001", room: "lobby", since: 41),
    .msg(room: "lobby", text: "hi bob", id: "9A0E"),
    .dm(to: "bob", text: "psst", id: "D-1"),
    .ack(id: "9A0E", room: "lobby", seq: 42, ts: 1_764_480_001_234),
    .error(code: .badRoom, text: "no \"such\" room", id: "X"),
    .error(code: .unavailable, text: "not stored", id: "X", stored: false),
    .roster(room: "lobby", members: []),
    .roster(room: "lobby", members: ["alice", "bob"]),
    .history(room: "lobby", before: 100, limit: 200),
    .typing(room: "lobby", isTyping: false),
    ChatMessage(type: "x", text: "\u{0}\u{1}\u{1F}\u{7F}\u{80}\u{9F}\u{A0}\u{FFFF}\u{10FFFF}", seq: .min, ts: .max),
    ChatMessage(type: "msg", text: String(repeating: "\\\"\n", count: 100), replay: false),
    ChatMessage(type: "", text: "", sender: "", room: "", id: "", peer: "", to: "", members: [""], code: ""),
]
