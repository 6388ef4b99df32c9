import Foundation
import Testing

@testable import ChatProtocol

/// The fields of the version 1.2 additions (PROTOCOL.md sections 13 to 17): written in their
/// place, read with their JSON types, bad types reported by name, and the two shapes of `rooms`.
struct VersionOneTwoFieldTests {
    /// `welcome` of a logged-in connection: kept rooms with their positions, conversations.
    @Test func welcomeListsRoomsAndConversationsWithTheirCounts() throws {
        let welcome = ChatMessage(
            type: "welcome", text: "qchat", sender: "alice", account: "alice",
            features: ["always-on", "edits", "reactions", "search"],
            rooms: [RoomListing(room: "dev", position: ReadPosition(seq: 42, read: 40, unread: 2, mentions: 1))],
            conversations: [ConversationListing(with: "bob", position: ReadPosition(seq: 7, read: 5, unread: 2, mentions: 2))])
        let encoded = String(decoding: welcome.encodedDatagram(), as: UTF8.self)
        #expect(encoded.contains(#""rooms":[{"room":"dev","seq":42,"read":40,"unread":2,"mentions":1}]"#), "\(encoded)")
        #expect(encoded.contains(#""conversations":[{"with":"bob","seq":7,"read":5,"unread":2,"mentions":2}]"#), "\(encoded)")
        #expect(!encoded.contains("members"), "a kept room is written in its own shape: \(encoded)")
        #expect(try decode(encoded) == welcome)
        #expect(try JSONDecoder().decode(ChatMessage.self, from: Data(encoded.utf8)) == welcome)
    }

    /// The contract's shapes as another peer writes them, key order and extras its own.
    @Test func readsListingsAsAnotherPeerWritesThem() throws {
        let welcome = try decode(#"""
            {"type":"welcome","rooms":[{"mentions":0,"unread":3,"room":"lobby","read":9,"seq":12,"x":[1]}],\#
            "conversations":[{"with":"carol","seq":1,"read":0,"unread":1,"mentions":1}]}
            """#)
        #expect(welcome.rooms == [RoomListing(room: "lobby", position: ReadPosition(seq: 12, read: 9, unread: 3, mentions: 0))])
        #expect(welcome.conversations == [ConversationListing(with: "carol", position: ReadPosition(seq: 1, read: 0, unread: 1, mentions: 1))])
        // A 1.1 listing stays a listing without a position.
        #expect(try decode(#"{"type":"rooms","rooms":[{"room":"a","members":2,"topic":""}]}"#).rooms?.first?.position == nil)
    }

    /// Requests and events of sections 13 to 15 round-trip through both coders.
    @Test(arguments: [
        ChatMessage(type: "read", room: "dev", read: 41),
        ChatMessage(type: "read", with: "bob", read: 3),
        ChatMessage(type: "edit", text: "fixed", room: "dev", id: "e1", ref: 40),
        ChatMessage(type: "edit", text: "fixed", sender: "alice", room: "dev", seq: 44, ts: 5, ref: 40),
        ChatMessage(type: "redact", text: "oops", room: "dev", ref: 40),
        ChatMessage(type: "react", text: "👍🏽", room: "dev", id: "r1", ref: 40),
        ChatMessage(type: "unreact", text: "+1", with: "bob", ref: 2),
        ChatMessage(type: "msg", text: "yes", room: "dev", id: "m1", ref: 40),
        ChatMessage(type: "dm", text: "hi", sender: "alice", seq: 3, ts: 9, to: "bob"),
        ChatMessage(type: "history", before: 10, limit: 50, with: "bob"),
        ChatMessage(type: "history-end", with: "bob"),
        ChatMessage(type: "search", text: "deploy friday", room: "dev", limit: 10),
        ChatMessage(type: "status", text: "away", away: "lunch, back at 2"),
        ChatMessage(type: "away", text: "lunch", sender: "bob"),
        ChatMessage(type: "msg", text: "", sender: "alice", room: "dev", seq: 40, ts: 1, edited: 7, redacted: true),
    ])
    func roundTrips(_ message: ChatMessage) throws {
        #expect(try ChatMessage.decode(message.encodedLine().dropLast()) == message)
        #expect(try JSONDecoder().decode(ChatMessage.self, from: Data(message.encodedDatagram())) == message)
    }

    /// `found` carries whole events, each decoded as a message of its own.
    @Test func foundCarriesWholeEvents() throws {
        let hit = ChatMessage(type: "msg", text: "deploy on friday", sender: "bob", room: "dev", seq: 12, ts: 100, edited: 120)
        let file = ChatMessage(type: "file", text: "notes.txt", sender: "carol", room: "dev", seq: 9, ts: 90, file: "f1", size: 3)
        let found = ChatMessage(type: "found", text: "deploy", room: "dev", events: [hit, file])
        let encoded = String(decoding: found.encodedDatagram(), as: UTF8.self)
        #expect(try decode(encoded) == found)
        #expect(try JSONDecoder().decode(ChatMessage.self, from: Data(encoded.utf8)) == found)
        // The top-level seq is absent; the events' own seqs are inside them.
        #expect(try decode(encoded).seq == nil)
        #expect(try decode(#"{"type":"found","events":[]}"#).events == [])
    }

    /// Wrong JSON types in the new fields are bad-field naming the field.
    @Test(arguments: [
        (#"{"type":"read","room":"dev","read":"41"}"#, "read"),
        (#"{"type":"edit","ref":4.5}"#, "ref"),
        (#"{"type":"history","with":["bob"]}"#, "with"),
        (#"{"type":"msg","edited":true}"#, "edited"),
        (#"{"type":"msg","redacted":1}"#, "redacted"),
        (#"{"type":"status","away":false}"#, "away"),
        (#"{"type":"welcome","conversations":{"with":"bob"}}"#, "conversations"),
        (#"{"type":"welcome","conversations":[{"with":"bob","unread":"2"}]}"#, "conversations"),
        (#"{"type":"welcome","rooms":[{"room":"a","seq":"1"}]}"#, "rooms"),
        (#"{"type":"found","events":[1]}"#, "events"),
        (#"{"type":"found","events":[{"text":"no type"}]}"#, "events"),
        (#"{"type":"found","events":[{"type":"msg","seq":"x"}]}"#, "events"),
    ])
    func badTypesNameTheField(json: String, field: String) {
        #expect(throws: ChatDecodeError.badField(field)) { try decode(json) }
    }

    /// Events nest no deeper than the parser's bound: a hostile chain of `found`s inside `events`
    /// is bad JSON, not a stack overflow.
    @Test func nestedFoundsAreBounded() {
        var json = #"{"type":"found"}"#
        for _ in 0..<40 { json = #"{"type":"found","events":["# + json + "]}" }
        #expect(throws: ChatDecodeError.badJSON) { try decode(json) }
    }
}
