import TestSupport
import ChatClientKit
import ChatProtocol
import Foundation
import QuicEngine
import Testing

/// End to end, a client of the original SimpleQuicClient kind: ALPN `chat`, only
/// `{text, type, sender}` objects, no LF between them, typing as `{"type":"presence"}`.
@Suite("chat-server legacy ALPN chat", .serialized)
struct LegacyALPNTests {
    private static let join = #"{"text":"","type":"join","sender":"oldtimer"}"#

    /// Connects the legacy client and waits for its hello; it writes its join without LF.
    private static func connectLegacy(_ world: ChatTestWorld) throws -> RawChatClient {
        let legacy = try world.connectRaw(alpn: ["chat"])
        legacy.onConnected = { client in
            guard let chat = try? client.openStream() else { return }
            client.write(join, to: chat)
        }
        return legacy
    }

    /// ALPN `chat` with bare `{text,type,sender}` objects and no LF gets welcome, acks and messages; all it receives has type, text and sender.
    @Test func legacyClientChatsWithoutLineFeeds() async throws {
        struct Result: Sendable {
            var ok = false
            var welcome: ChatMessage?
            var acks = 0
            var bobGot: [ChatMessage] = []
            var legacyGot: [ChatMessage] = []
            var objects: [String] = []
            var problems: [String] = []
            var closed = false
        }
        let result = try await scenario { world, _ -> Result in
            var result = Result()
            let bob = try world.connect("bob")
            result.ok = world.run { world.joined(bob) }
            let legacy = try Self.connectLegacy(world)
            result.ok = result.ok && world.run { legacy.has(type: "joined") { $0.sender == "oldtimer" && $0.replay != true } }
            legacy.write(#"{"text":"hello from iOS","type":"msg","sender":"oldtimer"}{"text":"second","type":"msg","sender":"somebody-else"}"#, to: 0)
            result.ok = result.ok && world.run { world.messages(bob, type: "msg").count == 2 && legacy.messages(on: 0, type: "ack").count == 2 }
            bob.send(.msg(room: "lobby", text: "hi oldtimer", id: "B-1"))
            result.ok = result.ok && world.run { legacy.has(type: "msg") }
            result.welcome = legacy.messages(on: 0, type: "welcome").first
            result.acks = legacy.messages(on: 0, type: "ack").count
            result.bobGot = world.messages(bob, type: "msg")
            result.legacyGot = legacy.messages(on: 0, type: "msg")
            result.objects = (legacy.bytes[0] ?? []).split(separator: 10).map { String(decoding: $0, as: UTF8.self) }
            result.problems = legacy.problems
            result.closed = legacy.closeReason != nil
            return result
        }
        #expect(result.ok)
        #expect(result.welcome?.sender == "oldtimer" && ClusterMode.isWelcomeText(result.welcome?.text, of: "qchat"))
        #expect(result.welcome?.peer.map(ChatValidation.isValidPeerID) == true)
        #expect(result.acks == 2)
        #expect(result.bobGot.map(\.text) == ["hello from iOS", "second"])
        #expect(result.bobGot.allSatisfy { $0.sender == "oldtimer" && $0.room == "lobby" && $0.id == nil && $0.seq != nil })
        #expect(result.legacyGot.map(\.text) == ["hi oldtimer"] && result.legacyGot.first?.sender == "bob")
        #expect(!result.objects.isEmpty)
        for object in result.objects {
            #expect(object.contains(#""type":"#) && object.contains(#""text":"#) && object.contains(#""sender":"#), "\(object)")
        }
        #expect(result.problems.isEmpty)
        #expect(!result.closed)
    }

    /// A legacy `{"type":"presence"}` on the presence stream reaches the others as typing `start` in lobby, by datagram or presence fallback.
    @Test func legacyPresenceIsTypingStart() async throws {
        struct Result: Sendable {
            var ok = false
            var datagram: ChatMessage?
            var fallback: ChatMessage?
            var errors = 0
            var roster: ChatMessage?
        }
        let result = try await scenario { world, _ -> Result in
            var result = Result()
            let bob = try world.connect("bob")
            let carol = try world.connect("carol") { $0.maxDatagramFrameSize = 0 }
            result.ok = world.run { world.joined(bob) && world.joined(carol) && world.has(carol, type: "roster") }
            let legacy = try Self.connectLegacy(world)
            result.ok = result.ok && world.run { legacy.has(type: "joined") { $0.sender == "oldtimer" && $0.replay != true } }
            guard let presence = try? legacy.openStream() else { return result }
            legacy.write(#"{"type":"presence"}"#, to: presence)
            result.ok = result.ok && world.run {
                world.has(bob, type: "typing") && world.has(carol, type: "typing") && legacy.has(type: "roster", on: presence)
            }
            world.settle(seconds: 0.2)
            result.datagram = world.messages(bob, type: "typing", channel: .datagram).first
            result.fallback = world.messages(carol, type: "typing", channel: .presence).first
            result.errors = legacy.messages(on: 0, type: "error").count
            result.roster = legacy.messages(on: presence, type: "roster").first
            return result
        }
        #expect(result.ok)
        #expect(result.datagram?.sender == "oldtimer" && result.datagram?.room == "lobby" && result.datagram?.text == "start")
        #expect(result.fallback?.sender == "oldtimer" && result.fallback?.room == "lobby" && result.fallback?.text == "start")
        #expect(result.errors == 0)
        #expect(result.roster?.members.map(Set.init) == ["bob", "carol", "oldtimer"])
    }
}
