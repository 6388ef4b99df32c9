import Foundation
import Testing

@testable import ChatProtocol

/// The fields of the version 1.1 additions for accounts and moderation (PROTOCOL.md sections 7
/// and 8): encoded in their place, decoded with their JSON types, bad types reported by name.
struct VersionOneOneFieldTests {
    /// The new fields come after the version 1 fields, in a fixed order, with their JSON types.
    @Test func writesTheNewFields() {
        let message = ChatMessage(
            type: "roster", room: "dev", account: "alice", password: "pw", mode: "+invite", topic: "t", features: ["accounts"],
            modes: ["invite"], ops: ["alice"], identified: ["alice", "bob"], rooms: [RoomListing(room: "dev", members: 2, topic: "x")])
        let expected = #"""
            {"type":"roster","room":"dev","sender":"","text":"","account":"alice","password":"pw","mode":"+invite","topic":"t",\#
            "features":["accounts"],"modes":["invite"],"ops":["alice"],"identified":["alice","bob"],\#
            "rooms":[{"room":"dev","members":2,"topic":"x"}]}
            """#
        #expect(String(decoding: message.encodedDatagram(), as: UTF8.self) == expected)
    }

    /// A roster of a room with no topic, no modes and no operators present still carries the
    /// three (PROTOCOL.md section 8; issue 23, item 20): `""` and `[]` are written, and read back
    /// as empty, not as absent.
    @Test func emptyRosterFieldsAreWrittenAndRead() throws {
        let roster = ChatMessage(type: "roster", room: "lobby", members: ["alice"], topic: "", modes: [], ops: [])
        let encoded = String(decoding: roster.encodedDatagram(), as: UTF8.self)
        #expect(encoded.contains(#""topic":"""#) && encoded.contains(#""modes":[]"#) && encoded.contains(#""ops":[]"#), "\(encoded)")
        let decoded = try decode(encoded)
        #expect(decoded.topic == "" && decoded.modes == [] && decoded.ops == [])
        #expect(try JSONDecoder().decode(ChatMessage.self, from: Data(encoded.utf8)) == decoded)
    }

    /// What the encoder writes the decoder reads back, and Foundation's Codable agrees.
    @Test func roundTripsThroughBothCoders() throws {
        let message = ChatMessage(
            type: "whois", text: "online", sender: "bob", account: "bob", modes: [], ops: [],
            rooms: [RoomListing(room: "a", members: 1), RoomListing(room: "b", members: 30, topic: "ünïcode \"quoted\"")])
        #expect(try ChatMessage.decode(message.encodedLine().dropLast()) == message)
        let viaFoundation = try JSONDecoder().decode(ChatMessage.self, from: Data(message.encodedDatagram()))
        #expect(viaFoundation == message)
    }

    /// A listing with unknown members and missing ones decodes with defaults; the protocol's example shape decodes.
    @Test func roomListingsAreLenientAboutExtras() throws {
        let message = try decode(#"{"type":"rooms","rooms":[{"room":"lobby","members":12,"topic":"hi","extra":[1,{"a":2}]},{"room":"x"}]}"#)
        #expect(message.rooms == [RoomListing(room: "lobby", members: 12, topic: "hi"), RoomListing(room: "x", members: 0)])
        #expect(try decode(#"{"type":"rooms","rooms":[]}"#).rooms == [])
        #expect(try decode(#"{"type":"rooms","rooms":null}"#).rooms == nil)
    }

    /// Wrong JSON types in the new fields are bad-field naming the field.
    @Test(arguments: [
        (#"{"type":"join","password":7}"#, "password"),
        (#"{"type":"mode","mode":["+invite"]}"#, "mode"),
        (#"{"type":"roster","ops":"alice"}"#, "ops"),
        (#"{"type":"roster","identified":[1]}"#, "identified"),
        (#"{"type":"welcome","features":[null]}"#, "features"),
        (#"{"type":"rooms","rooms":["lobby"]}"#, "rooms"),
        (#"{"type":"rooms","rooms":[{"room":1}]}"#, "rooms"),
        (#"{"type":"rooms","rooms":[{"members":"many"}]}"#, "rooms"),
        (#"{"type":"rooms","rooms":[{"members":1.5}]}"#, "rooms"),
        (#"{"type":"x","account":false}"#, "account"),
        (#"{"type":"x","topic":{}}"#, "topic"),
        (#"{"type":"x","modes":"invite"}"#, "modes"),
    ])
    func wrongTypesAreBadField(_ json: String, _ field: String) {
        #expect(decodeError(json) == .badField(field))
    }

    /// A syntax error inside a listing is bad-json, as anywhere else.
    @Test func brokenListingIsBadJSON() {
        #expect(decodeError(#"{"type":"rooms","rooms":[{"room":"a",}]}"#) == .badJSON)
    }

    /// Among bad fields, the version 1 fields are named first, then the new ones in their order.
    @Test func badFieldOrderIncludesTheNewFields() {
        #expect(decodeError(#"{"rooms":1,"account":2,"type":"x"}"#) == .badField("account"))
        #expect(decodeError(#"{"rooms":1,"account":2,"type":"x","replay":3}"#) == .badField("replay"))
    }

    /// Mode changes parse as +/- and a known mode, and print back the same.
    @Test func modeChanges() {
        #expect(RoomModeChange("+invite") == RoomModeChange(.invite, on: true))
        #expect(RoomModeChange("-registered") == RoomModeChange(.registered, on: false))
        #expect(RoomModeChange("+invite")?.description == "+invite")
        for bad in ["invite", "+", "*invite", "+Invite", "+moderated", ""] { #expect(RoomModeChange(bad) == nil) }
    }

    /// Topics are one line of at most 512 bytes, control characters removed; passwords 8 to 256 bytes.
    @Test func topicAndPasswordRules() throws {
        #expect(try ChatValidation.sanitizeTopic("two\nlines\tand\u{1B}[31m red") == "two lines and[31m red")
        #expect(try ChatValidation.sanitizeTopic(String(repeating: "é", count: 256)).utf8.count == 512)
        #expect(throws: ChatValidationError.textTooLarge) { try ChatValidation.sanitizeTopic(String(repeating: "x", count: 513)) }
        #expect(try ChatValidation.sanitizeTopic("") == "")
        #expect(!ChatValidation.isAcceptablePassword("1234567"))
        #expect(ChatValidation.isAcceptablePassword("12345678"))
        #expect(ChatValidation.isAcceptablePassword(String(repeating: "é", count: 128)))
        #expect(!ChatValidation.isAcceptablePassword(String(repeating: "é", count: 128) + "x"))
    }

    /// The request shorthands fill the fields sections 7 and 8 give.
    @Test func requestConstructors() {
        #expect(ChatMessage.register(password: "pw") == ChatMessage(type: "register", password: "pw"))
        #expect(ChatMessage.login(account: "alice", password: nil) == ChatMessage(type: "login", sender: "alice"))
        #expect(ChatMessage.changePassword("new") == ChatMessage(type: "password", password: "new"))
        #expect(ChatMessage.certificate(add: false) == ChatMessage(type: "certificate", text: "remove"))
        #expect(ChatMessage.kick(room: nil, nick: "bob", reason: "r") == ChatMessage(type: "kick", text: "r", to: "bob"))
        #expect(ChatMessage.ban(room: "dev", target: "bob") == ChatMessage(type: "ban", room: "dev", to: "bob"))
        #expect(ChatMessage.mode(room: "dev", "+invite") == ChatMessage(type: "mode", room: "dev", mode: "+invite"))
        #expect(ChatMessage.op(room: "dev", account: "bob") == ChatMessage(type: "op", room: "dev", to: "bob"))
        #expect(ChatMessage.whois("bob") == ChatMessage(type: "whois", to: "bob"))
        #expect(ChatMessage.listRooms() == ChatMessage(type: "rooms"))
        #expect(ChatMessage.join(nick: "a", peer: "P", room: "r", password: "pw").password == "pw")
    }
}
