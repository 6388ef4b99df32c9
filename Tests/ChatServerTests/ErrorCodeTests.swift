import TestSupport
import ChatClientKit
import ChatProtocol
import Foundation
import QuicEngine
import Testing

/// End to end, every `error` code of PROTOCOL.md section 5: the offender gets the error (with
/// the request's `id` when it had one), its connection stays open and usable, and the other
/// client sees nothing of it.
@Suite("chat-server error codes", .serialized)
struct ErrorCodeTests {
    struct Provoked: Sendable {
        var ok = false
        var errors: [ChatMessage] = []
        var acks: [String?] = []
        /// Everything bob received after both were settled and before alice's follow-up.
        var bobSaw: [ChatMessage] = []
        var aliceClose: UInt64?
        var bobClose: UInt64?
        var followUpAcked = false
        var followUpDelivered = false
    }

    /// alice and bob share the lobby; `trigger` makes alice misbehave; the loop runs until
    /// `done` (default: alice has `errors` errors), then a short settle shows bob gets nothing;
    /// finally alice sends a normal msg, which must be acked and reach bob.
    private func provoke(server: [String] = [], errors count: Int = 1,
                         done: (@Sendable (ChatTestWorld, ChatSession) -> Bool)? = nil,
                         _ trigger: @escaping @Sendable (ChatTestWorld, ChatSession) -> Void) async throws -> Provoked {
        try await scenario(server: server) { world, _ -> Provoked in
            var result = Provoked()
            let alice = try world.connectAndJoin("alice")
            let bob = try world.connectAndJoin("bob")
            result.ok = world.run {
                world.joined(alice) && world.joined(bob) && world.has(alice, type: "joined") { $0.sender == "bob" }
                    && world.has(alice, type: "status") { $0.sender == "bob" }
            }
            let baseline = world.messages(bob).count
            trigger(world, alice)
            result.ok = result.ok && world.run { done?(world, alice) ?? (world.messages(alice, type: "error").count >= count) }
            world.settle(seconds: 0.3)
            result.bobSaw = Array(world.messages(bob).dropFirst(baseline))
            alice.send(.msg(room: "lobby", text: "still here", id: "follow-up"))
            world.run { world.has(alice, type: "ack") { $0.id == "follow-up" } && world.has(bob, type: "msg") { $0.id == "follow-up" } }
            result.followUpAcked = world.has(alice, type: "ack") { $0.id == "follow-up" }
            result.followUpDelivered = world.has(bob, type: "msg") { $0.id == "follow-up" && $0.text == "still here" }
            result.errors = world.messages(alice, type: "error")
            result.acks = world.messages(alice, type: "ack").map(\.id).filter { $0 != "follow-up" }
            result.aliceClose = world.closeCode(alice)
            result.bobClose = world.closeCode(bob)
            return result
        }
    }

    /// The connection of the offender stays open and usable, and nobody else is bothered.
    private func expectContained(_ result: Provoked, bobMaySee allowed: (ChatMessage) -> Bool = { _ in false },
                                 sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.ok, sourceLocation: sourceLocation)
        #expect(result.aliceClose == nil && result.bobClose == nil, sourceLocation: sourceLocation)
        #expect(result.followUpAcked && result.followUpDelivered, sourceLocation: sourceLocation)
        #expect(result.bobSaw.filter { !allowed($0) }.isEmpty, "bob saw \(result.bobSaw)", sourceLocation: sourceLocation)
    }

    private static func line(_ json: String) -> [UInt8] { Array((json + "\n").utf8) }

    /// Invalid JSON and a garbage line each get `bad-json`; the connection stays open and bob sees nothing.
    @Test func badJSON() async throws {
        let result = try await provoke(errors: 2) { _, alice in
            alice.sendRaw(Self.line(#"{"type":"msg","room":"lobby","text":"x","id":"J-1",}"#))
            alice.sendRaw(Self.line("hello there"))
        }
        expectContained(result)
        #expect(result.errors.map(\.code) == ["bad-json", "bad-json"])
        #expect(result.acks.isEmpty)
    }

    /// A field of the wrong JSON type and an empty text get `bad-field` with the request's id; the connection stays open and bob sees nothing.
    @Test func badField() async throws {
        let result = try await provoke(errors: 2) { _, alice in
            alice.sendRaw(Self.line(#"{"type":"msg","room":"lobby","text":42,"id":"F-1"}"#))
            alice.send(.msg(room: "lobby", text: "", id: "F-2"))
        }
        expectContained(result)
        #expect(result.errors.map(\.code) == ["bad-field", "bad-field"])
        #expect(result.errors.map(\.id) == ["F-1", "F-2"])
        #expect(result.errors.allSatisfy { !$0.text.isEmpty })
    }

    /// An undefined type and a server-only type from a client get `unknown-type` with the request's id; the connection stays open, bob sees nothing.
    @Test func unknownType() async throws {
        let result = try await provoke(errors: 2) { _, alice in
            alice.send(ChatMessage(type: "shout", text: "HEY", room: "lobby", id: "U-1"))
            alice.send(ChatMessage(type: "welcome", text: "me", id: "U-2"))
        }
        expectContained(result)
        #expect(result.errors.map(\.code) == ["unknown-type", "unknown-type"])
        #expect(result.errors.map(\.id) == ["U-1", "U-2"])
    }

    /// A msg text of 4097 bytes gets `too-large` with its id while 4096 bytes are accepted; the connection stays open.
    @Test func tooLarge() async throws {
        let result = try await provoke(done: { world, alice in world.has(alice, type: "error") && world.has(alice, type: "ack") }) { _, alice in
            alice.send(.msg(room: "lobby", text: String(repeating: "é", count: 2048) + "x", id: "T-1"))
            alice.send(.msg(room: "lobby", text: String(repeating: "é", count: 2048), id: "T-2"))
        }
        expectContained(result) { $0.type == "msg" && $0.id == "T-2" }
        #expect(result.errors.map(\.code) == ["too-large"] && result.errors.first?.id == "T-1")
        #expect(result.acks == ["T-2"])
        #expect(result.bobSaw.filter { $0.type == "msg" }.map(\.text.utf8.count) == [4096])
    }

    /// msg, history and part for a room the client is not in get `not-joined` with their ids; the connection stays open, bob sees nothing.
    @Test func notJoined() async throws {
        let result = try await provoke(errors: 3) { _, alice in
            alice.send(.msg(room: "elsewhere", text: "hello?", id: "N-1"))
            alice.send(ChatMessage(type: "history", room: "elsewhere", id: "N-2"))
            alice.send(ChatMessage(type: "part", room: "elsewhere", id: "N-3"))
        }
        expectContained(result)
        #expect(result.errors.map(\.code) == ["not-joined", "not-joined", "not-joined"])
        #expect(result.errors.map(\.id) == ["N-1", "N-2", "N-3"])
    }

    /// A nick change to an invalid nick (leading digit; 25 characters) gets `bad-nick` with its id; the connection stays open, bob sees nothing.
    @Test func badNick() async throws {
        let result = try await provoke(errors: 2) { _, alice in
            alice.send(ChatMessage(type: "nick", text: "9lives", id: "B-1"))
            alice.send(ChatMessage(type: "nick", text: String(repeating: "a", count: 25), id: "B-2"))
        }
        expectContained(result)
        #expect(result.errors.map(\.code) == ["bad-nick", "bad-nick"])
        #expect(result.errors.map(\.id) == ["B-1", "B-2"])
    }

    /// A nick change to another client's nick, in another case, gets `nick-in-use` with its id; the connection stays open, bob sees nothing.
    @Test func nickInUse() async throws {
        let result = try await provoke { _, alice in
            alice.send(ChatMessage(type: "nick", text: "BOB", id: "I-1"))
        }
        expectContained(result)
        #expect(result.errors.map(\.code) == ["nick-in-use"] && result.errors.first?.id == "I-1")
    }

    /// An invalid room name in msg and in join gets `bad-room` with the request's id; the connection stays open, bob sees nothing.
    @Test func badRoom() async throws {
        let result = try await provoke(errors: 2) { _, alice in
            alice.send(.msg(room: "Not A Room!", text: "hi", id: "R-1"))
            alice.send(ChatMessage(type: "join", room: "-dash", id: "R-2"))
        }
        expectContained(result)
        #expect(result.errors.map(\.code) == ["bad-room", "bad-room"])
        #expect(result.errors.map(\.id) == ["R-1", "R-2"])
    }

    /// A dm to a nick nobody holds gets `no-such-user` with its id; the connection stays open, bob sees nothing.
    @Test func noSuchUser() async throws {
        let result = try await provoke { _, alice in
            alice.send(.dm(to: "nobody", text: "hello?", id: "S-1"))
        }
        expectContained(result)
        #expect(result.errors.map(\.code) == ["no-such-user"] && result.errors.first?.id == "S-1")
    }

    /// Past the flood burst, msgs are dropped with `rate-limited` carrying their ids; bob gets only the accepted ones; after a pause it is served again.
    @Test func rateLimited() async throws {
        let ids = (1...8).map { "L-\($0)" }
        let result = try await provoke(server: ["--flood-burst", "5", "--flood-rate", "4"],
                                       done: { world, alice in
                                           world.messages(alice, type: "error").count + world.messages(alice, type: "ack").count == 8
                                       }) { _, alice in
            for id in ids { alice.send(.msg(room: "lobby", text: "spam \(id)", id: id)) }
        }
        expectContained(result) { $0.type == "msg" && result.acks.contains($0.id) }
        #expect(!result.errors.isEmpty)
        #expect(result.errors.allSatisfy { $0.code == "rate-limited" })
        let dropped = result.errors.compactMap(\.id)
        #expect(dropped.count == result.errors.count)
        #expect(Set(dropped).isDisjoint(with: result.acks.compactMap { $0 }))
        #expect(Set(dropped).union(result.acks.compactMap { $0 }) == Set(ids))
        #expect(result.bobSaw.filter { $0.type == "msg" }.map(\.id) == result.acks)
    }

    /// A first `join` with a bad nick or bad room gets the error, the connection stays open, and the next valid `join` is the hello.
    @Test func badFirstJoinKeepsConnectionOpen() async throws {
        let result = try await scenario { world, _ -> (ok: Bool, errors: [String?], welcome: ChatMessage?, close: UInt64?) in
            let peer = ChatSession.randomPeerID()
            let newbie = try world.connect("newbie", peer: peer)
            newbie.firstMessages = [ChatMessage.join(nick: "1up", peer: peer, room: "lobby").encodedLine(),
                                    ChatMessage.join(nick: "newbie", peer: peer, room: "No Room").encodedLine()]
            var ok = world.run { world.messages(newbie, type: "error").count == 2 }
            newbie.send(.join(nick: "newbie", peer: peer, room: "lobby"))
            ok = ok && world.run { world.joined(newbie) }
            return (ok, world.messages(newbie, type: "error").map(\.code), world.messages(newbie, type: "welcome").first,
                    world.closeCode(newbie))
        }
        #expect(result.ok)
        #expect(result.errors == ["bad-nick", "bad-room"])
        #expect(result.welcome?.sender == "newbie")
        #expect(result.close == nil)
    }
}
