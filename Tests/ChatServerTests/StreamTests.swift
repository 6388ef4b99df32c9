import TestSupport
import ChatClientKit
import ChatProtocol
import Foundation
import QuicEngine
import Testing

/// End to end, the stream rules of PROTOCOL.md section 2, with a bare client that opens its
/// streams by hand.
@Suite("chat-server streams", .serialized)
struct StreamTests {
    private static func line(_ message: ChatMessage) -> [UInt8] { message.encodedLine() }

    /// A third client-opened stream (id 8) is a file stream (PROTOCOL.md section 9): a chat message on it is refused there
    /// (error unknown-type, FIN), never taken as chat; streams 0 and 4 keep working.
    @Test func thirdStreamIsAFileStream() async throws {
        struct Result: Sendable {
            var ok = false
            var third: QuicStreamID = -1
            var resets: [RawChatClient.Reset] = []
            var thirdAnswer: String?
            var acks: [String?] = []
            var bobTexts: [String] = []
            var closed = false
        }
        let result = try await scenario { world, _ -> Result in
            var result = Result()
            let bob = try world.connect("bob")
            let raw = try world.connectRaw()
            raw.onConnected = { client in
                guard let chat = try? client.openStream(), let presence = try? client.openStream() else { return }
                client.write(Self.line(.join(nick: "alice", peer: ChatSession.randomPeerID(), room: "lobby")), to: chat)
                client.write(Self.line(.status("online")), to: presence)
            }
            result.ok = world.run { world.joined(bob) && raw.has(type: "joined") { $0.sender == "alice" } && raw.has(type: "roster", on: 4) }
            guard let third = try? raw.openStream() else { return result }
            result.third = third
            raw.write(Self.line(.msg(room: "lobby", text: "on a third stream", id: "X-8")), to: third)
            result.ok = result.ok && world.run { raw.finished.contains(third) }
            result.thirdAnswer = raw.messages(on: third).first?.code
            raw.write(Self.line(.msg(room: "lobby", text: "on the chat stream", id: "X-0")), to: 0)
            result.ok = result.ok && world.run { raw.has(type: "ack") && world.has(bob, type: "msg") }
            world.settle(seconds: 0.2)
            result.resets = raw.resets
            result.acks = raw.messages(on: 0, type: "ack").map(\.id)
            result.bobTexts = world.messages(bob, type: "msg").map(\.text)
            result.closed = raw.closeReason != nil
            return result
        }
        #expect(result.ok)
        #expect(result.third == 8)
        #expect(result.resets.isEmpty && result.thirdAnswer == "unknown-type")
        #expect(result.acks == ["X-0"])
        #expect(result.bobTexts == ["on the chat stream"])
        #expect(!result.closed)
    }

    /// Data on stream 4 received before any on stream 0 is taken as presence (`status away` applied at the hello), not as the first message.
    @Test func presenceStreamBeforeChatStream() async throws {
        struct Result: Sendable {
            var ok = false
            var welcome: ChatMessage?
            var roster: ChatMessage?
            var bobStatus: [ChatMessage] = []
            var closed = false
        }
        let result = try await scenario { world, _ -> Result in
            var result = Result()
            let bob = try world.connect("bob")
            result.ok = world.run { world.joined(bob) && world.has(bob, type: "roster") }
            let raw = try world.connectRaw()
            raw.onConnected = { client in
                // Stream 0 exists locally but carries nothing yet; stream 4 speaks first.
                guard (try? client.openStream()) == 0, let presence = try? client.openStream() else { return }
                client.write(Self.line(.status("away")), to: presence)
            }
            // The server has acknowledged the presence bytes before any chat byte leaves.
            result.ok = result.ok && world.run { raw.isConnected && raw.connection.bufferedAmount(4) == 0 }
            raw.write(Self.line(.join(nick: "alice", peer: ChatSession.randomPeerID(), room: "lobby")), to: 0)
            result.ok = result.ok && world.run {
                raw.has(type: "joined") { $0.sender == "alice" } && raw.has(type: "roster", on: 4)
                    && world.has(bob, type: "status") { $0.sender == "alice" }
            }
            result.welcome = raw.messages(on: 0, type: "welcome").first
            result.roster = raw.messages(on: 4, type: "roster").first
            result.bobStatus = world.messages(bob, type: "status", channel: .presence)
            result.closed = raw.closeReason != nil
            return result
        }
        #expect(result.ok)
        #expect(result.welcome?.sender == "alice")
        #expect(result.roster?.members.map(Set.init) == ["alice", "bob"])
        #expect(result.bobStatus.map(\.text) == ["away"])
        #expect(!result.closed)
    }
}
