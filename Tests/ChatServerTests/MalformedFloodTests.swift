import TestSupport
import ChatClientKit
import ChatProtocol
import Foundation
import QuicEngine
import Testing

/// Hostile-peer scenario 7 (issue 6): one client sends 10,000 malformed messages. Each gets the
/// `error` PROTOCOL.md gives for it, in order, with its id where the request had a readable one;
/// the ones PROTOCOL.md closes for (invalid UTF-8, a frame over 65536 bytes) close that
/// connection with PROTOCOL_ERROR; the other clients see nothing but presence.
///
/// The flood limits are raised so every malformed message is answered on its own merits
/// instead of being counted away as `rate-limited` (PROTOCOL.md counts malformed ones too).
@Suite("chat-server under 10,000 malformed messages", .serialized)
struct MalformedFloodTests {
    /// One kind of malformed message: how to build the `n`th, and what the server must answer.
    struct Malformed: Sendable {
        let name: String
        let code: String
        /// Whether the reply carries the request's id (only when the JSON was readable).
        let echoesID: Bool
        let line: @Sendable (_ id: String) -> [UInt8]
    }

    static let corpus: [Malformed] = [
        Malformed(name: "trailing comma", code: "bad-json", echoesID: false) { id in
            line(#"{"type":"msg","room":"lobby","text":"x","id":"\#(id)",}"#)
        },
        Malformed(name: "not JSON at all", code: "bad-json", echoesID: false) { id in line("hello \(id), how are you") }
        ,
        Malformed(name: "JSON array", code: "bad-json", echoesID: false) { id in line(#"["msg","lobby","\#(id)"]"#) },
        Malformed(name: "lone surrogate escape", code: "bad-json", echoesID: false) { id in
            line(#"{"type":"msg","room":"lobby","text":"\udc00","id":"\#(id)"}"#)
        },
        Malformed(name: "nesting too deep", code: "bad-json", echoesID: false) { id in
            line(#"{"type":"msg","id":"\#(id)","x":"# + String(repeating: "[", count: 200) + String(repeating: "]", count: 200) + "}")
        },
        Malformed(name: "text is a number", code: "bad-field", echoesID: true) { id in
            line(#"{"type":"msg","room":"lobby","text":42,"id":"\#(id)"}"#)
        },
        Malformed(name: "room is an array", code: "bad-field", echoesID: true) { id in
            line(#"{"type":"msg","room":["lobby"],"text":"hi","id":"\#(id)"}"#)
        },
        Malformed(name: "seq is a fraction", code: "bad-field", echoesID: true) { id in
            line(#"{"type":"history","room":"lobby","seq":1.5,"text":"","id":"\#(id)"}"#)
        },
        Malformed(name: "empty text", code: "bad-field", echoesID: true) { id in
            ChatMessage.msg(room: "lobby", text: "", id: id).encodedLine()
        },
        Malformed(name: "unknown type", code: "unknown-type", echoesID: true) { id in
            ChatMessage(type: "shout", text: "HEY", room: "lobby", id: id).encodedLine()
        },
        Malformed(name: "server-only type", code: "unknown-type", echoesID: true) { id in
            ChatMessage(type: "welcome", text: "me", id: id).encodedLine()
        },
        Malformed(name: "text over 4096 bytes", code: "too-large", echoesID: true) { id in
            ChatMessage.msg(room: "lobby", text: String(repeating: "z", count: 4097), id: id).encodedLine()
        },
        Malformed(name: "invalid room name", code: "bad-room", echoesID: true) { id in
            ChatMessage.msg(room: "\u{1B}[2J", text: "hi", id: id).encodedLine()
        },
    ]

    static func line(_ json: String) -> [UInt8] { Array((json + "\n").utf8) }

    struct Outcome: Sendable {
        var ok = false
        var expected: [(code: String, id: String?)] = []
        var errors: [ChatMessage] = []
        var offenderClose: UInt64?
        var othersSaw: [ChatMessage] = []
        var othersClosed: [UInt64?] = []
        var followUpDelivered = false
    }

    @Test func tenThousandMalformedMessagesEachGetTheirError() async throws {
        let total = 10_000, batch = 500
        let outcome = try await scenario(server: ["--flood-burst", "1000000", "--flood-rate", "1000000"]) { world, _ -> Outcome in
            var outcome = Outcome()
            let mallory = try world.connectAndJoin("mallory")
            let bob = try world.connectAndJoin("bob")
            let carol = try world.connectAndJoin("carol")
            outcome.ok = world.run {
                [mallory, bob, carol].allSatisfy { world.joined($0) }
                    && world.has(bob, type: "status") { $0.sender == "carol" } && world.has(mallory, type: "status") { $0.sender == "carol" }
            }
            world.settle(seconds: 0.2)
            let baselines = [world.messages(bob).count, world.messages(carol).count]
            for start in stride(from: 0, to: total, by: batch) where outcome.ok {
                var bytes: [UInt8] = []
                for index in start..<(start + batch) {
                    let kind = Self.corpus[index % Self.corpus.count]
                    let id = "M-\(index)"
                    bytes += kind.line(id)
                    outcome.expected.append((kind.code, kind.echoesID ? id : nil))
                }
                mallory.sendRaw(bytes)
                outcome.ok = world.run(seconds: 30) { world.count(mallory, type: "error") >= start + batch || world.closeCode(mallory) != nil }
            }
            mallory.send(.msg(room: "lobby", text: "done", id: "follow-up"))
            // The ack too: it leaves once the message is on disk, which may be after the others
            // have it (docs/PROTOCOL.md, "One server's room log").
            world.run {
                world.has(mallory, type: "ack") { $0.id == "follow-up" }
                    && world.has(bob, type: "msg") { $0.id == "follow-up" } && world.has(carol, type: "msg") { $0.id == "follow-up" }
            }
            outcome.followUpDelivered = world.has(mallory, type: "ack") { $0.id == "follow-up" }
                && [bob, carol].allSatisfy { world.has($0, type: "msg") { $0.id == "follow-up" } }
            outcome.errors = world.messages(mallory, type: "error")
            outcome.offenderClose = world.closeCode(mallory)
            outcome.othersSaw = zip([bob, carol], baselines).flatMap { world.messages($0).dropFirst($1) }.filter { $0.id != "follow-up" }
            outcome.othersClosed = [world.closeCode(bob), world.closeCode(carol)]
            return outcome
        }
        #expect(outcome.ok)
        #expect(outcome.errors.count == total)
        let mismatches = zip(outcome.errors, outcome.expected).enumerated().filter { $1.0.code != $1.1.code || $1.0.id != $1.1.id }
        #expect(mismatches.isEmpty, "first mismatches: \(mismatches.prefix(3).map { ($0, $1.0.code, $1.0.id, $1.1.code) })")
        #expect(outcome.errors.allSatisfy { !$0.text.isEmpty })
        #expect(outcome.offenderClose == nil)
        #expect(outcome.followUpDelivered)
        #expect(outcome.othersSaw.isEmpty, "the others saw \(outcome.othersSaw.prefix(5))")
        #expect(outcome.othersClosed == [nil, nil])
    }

    struct Closed: Sendable {
        var ok = false
        var code: UInt64?
        var offenderErrors: [String?] = []
        var othersSaw: [ChatMessage] = []
        var followUpDelivered = false
    }

    /// The malformed messages PROTOCOL.md closes for, each on its own connection after a run of
    /// answerable ones: the close is PROTOCOL_ERROR; the others see only `left` and `offline`.
    static let closingCases: [String: [UInt8]] = {
        let head = Array(#"{"type":"msg","room":"lobby","id":"X","text":""#.utf8), tail = Array("\"}\n".utf8)
        return [
            "invalid UTF-8": head + [0xC3, 0x28] + tail,
            "overlong UTF-8": head + [0xC0, 0xAF] + tail,
            "70 KB frame": head + [UInt8](repeating: 0x61, count: 70_000) + tail,
            "70 KB without a line feed": [UInt8](repeating: 0x7B, count: 70_000),
        ]
    }()

    @Test(arguments: closingCases.keys.sorted())
    func closingMalformedMessages(name: String) async throws {
        let bytes = try #require(Self.closingCases[name])
        let result = try await scenario(server: ["--flood-burst", "1000000", "--flood-rate", "1000000"]) { world, _ -> Closed in
            var result = Closed()
            let mallory = try world.connectAndJoin("mallory")
            let bob = try world.connectAndJoin("bob")
            result.ok = world.run { world.joined(mallory) && world.joined(bob) && world.has(mallory, type: "status") { $0.sender == "bob" } }
            world.settle(seconds: 0.2)
            let baseline = world.messages(bob).count
            let answerable = (0..<100).flatMap { Self.corpus[$0 % Self.corpus.count].line("P-\($0)") }
            mallory.sendRaw(answerable + bytes)
            result.ok = result.ok && world.run { world.closeCode(mallory) != nil && world.has(bob, type: "status") { $0.text == "offline" } }
            result.code = world.closeCode(mallory)
            result.offenderErrors = world.messages(mallory, type: "error").map(\.code)
            bob.send(.msg(room: "lobby", text: "anyone?", id: "follow-up"))
            world.run { world.has(bob, type: "ack") { $0.id == "follow-up" } }
            result.followUpDelivered = world.has(bob, type: "ack") { $0.id == "follow-up" }
            result.othersSaw = Array(world.messages(bob).dropFirst(baseline))
            return result
        }
        #expect(result.ok, "\(name)")
        #expect(result.code == CloseCode.protocolError.rawValue, "\(name)")
        #expect(result.offenderErrors == (0..<100).map { Self.corpus[$0 % Self.corpus.count].code }, "\(name)")
        #expect(result.followUpDelivered)
        let presence = result.othersSaw.filter { $0.type != "ack" }
        #expect(presence.map(\.type).sorted() == ["left", "status"], "\(name): bob saw \(presence)")
        #expect(presence.allSatisfy { $0.sender == "mallory" })
    }
}
