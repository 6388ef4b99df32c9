import TestSupport
import ChatClientKit
import ChatProtocol
import Foundation
import QuicEngine
import Testing

/// End to end, every CONNECTION_CLOSE application code the server sends (PROTOCOL.md section 5),
/// as the client receives it, and what the other clients see of it.
@Suite("chat-server close codes", .serialized)
struct CloseCodeTests {
    struct Closed: Sendable {
        var ok = false
        var code: UInt64?
        var offender: [ChatMessage] = []
        var bobSaw: [ChatMessage] = []
        var bobClose: UInt64?
    }

    /// alice and bob share the lobby; alice sends `bytes` raw on her chat stream and must be closed.
    private func closeAfterRaw(_ bytes: [[UInt8]]) async throws -> Closed {
        try await scenario { world, _ -> Closed in
            var result = Closed()
            let alice = try world.connectAndJoin("alice")
            let bob = try world.connectAndJoin("bob")
            result.ok = world.run {
                world.joined(alice) && world.joined(bob) && world.has(alice, type: "joined") { $0.sender == "bob" }
                    && world.has(alice, type: "status") { $0.sender == "bob" }
            }
            let baseline = world.messages(bob).count
            for chunk in bytes { alice.sendRaw(chunk) }
            result.ok = result.ok && world.run { world.closeCode(alice) != nil && world.has(bob, type: "left") }
            world.settle(seconds: 0.2)
            result.code = world.closeCode(alice)
            result.offender = world.messages(alice)
            result.bobSaw = Array(world.messages(bob).dropFirst(baseline))
            result.bobClose = world.closeCode(bob)
            return result
        }
    }

    /// A first message other than `join` closes with PROTOCOL_ERROR, without a welcome, and nobody hears of it.
    @Test func protocolErrorWhenFirstMessageIsNotJoin() async throws {
        let result = try await scenario { world, _ -> Closed in
            var result = Closed()
            let bob = try world.connect("bob")
            result.ok = world.run { world.joined(bob) && world.has(bob, type: "roster") }
            let baseline = world.messages(bob).count
            let rude = try world.connect("rude")
            rude.firstMessages = [ChatMessage.msg(room: "lobby", text: "me first", id: "X-1").encodedLine()]
            result.ok = result.ok && world.run { world.closeCode(rude) != nil }
            world.settle(seconds: 0.2)
            result.code = world.closeCode(rude)
            result.offender = world.messages(rude)
            result.bobSaw = Array(world.messages(bob).dropFirst(baseline))
            result.bobClose = world.closeCode(bob)
            return result
        }
        #expect(result.ok)
        #expect(result.code == CloseCode.protocolError.rawValue)
        #expect(result.offender.isEmpty)
        #expect(result.bobSaw.isEmpty && result.bobClose == nil)
    }

    /// A message of 65,536 bytes with its LF is read (`too-large` text); one byte more closes with PROTOCOL_ERROR; bob sees `left` and `offline`.
    @Test func protocolErrorForMessageOver65536Bytes() async throws {
        func message(objectBytes: Int, id: String) -> [UInt8] {
            let head = Array(#"{"type":"msg","room":"lobby","id":"\#(id)","text":""#.utf8)
            let tail = Array(#""}"#.utf8)
            return head + [UInt8](repeating: UInt8(ascii: "a"), count: objectBytes - head.count - tail.count) + tail + [10]
        }
        let edge = message(objectBytes: ChatLimits.maxStreamMessageBytes - 1, id: "edge")
        let over = message(objectBytes: ChatLimits.maxStreamMessageBytes, id: "over")
        #expect(edge.count == 65_536 && over.count == 65_537)
        let result = try await closeAfterRaw([edge, over])
        #expect(result.ok)
        #expect(result.code == CloseCode.protocolError.rawValue)
        #expect(result.offender.filter { $0.type == "error" }.map(\.code) == ["too-large"])
        #expect(result.offender.first { $0.type == "error" }?.id == "edge")
        #expect(result.bobSaw.map(\.type).sorted() == ["left", "status"])
        #expect(result.bobSaw.contains { $0.type == "left" && $0.sender == "alice" && $0.text == "protocol-error" })
        #expect(result.bobSaw.contains { $0.type == "status" && $0.sender == "alice" && $0.text == "offline" })
        #expect(result.bobClose == nil)
    }

    /// Invalid UTF-8 on the chat stream closes with PROTOCOL_ERROR after the ack of the valid msg sent just before; bob sees that msg, `left`, `offline`.
    @Test func protocolErrorForInvalidUTF8() async throws {
        let valid = ChatMessage.msg(room: "lobby", text: "fine", id: "U-0").encodedLine()
        let invalid = Array(#"{"type":"msg","room":"lobby","id":"U-1","text":"bad "#.utf8) + [0xFF, 0xFE] + Array("\"}\n".utf8)
        let result = try await closeAfterRaw([valid + invalid])
        #expect(result.ok)
        #expect(result.code == CloseCode.protocolError.rawValue)
        #expect(result.offender.filter { $0.type == "ack" }.map(\.id) == ["U-0"])
        #expect(result.bobSaw.map(\.type).sorted() == ["left", "msg", "status"])
        #expect(result.bobSaw.contains { $0.type == "msg" && $0.id == "U-0" })
        #expect(result.bobSaw.contains { $0.type == "left" && $0.text == "protocol-error" })
        #expect(result.bobSaw.contains { $0.type == "status" && $0.text == "offline" })
    }

    /// The same `peer` connecting again closes the old connection with REPLACED; the new one keeps the nick; bob sees no `left` or offline.
    @Test func replacedKeepsNickWithoutLeft() async throws {
        struct Result: Sendable {
            var ok = false
            var oldCode: UInt64?
            var newCode: UInt64?
            var welcome: ChatMessage?
            var bobSaw: [ChatMessage] = []
            var peer = ""
        }
        let result = try await scenario { world, _ -> Result in
            var result = Result()
            let peer = ChatSession.randomPeerID()
            result.peer = peer
            let alice = try world.connectAndJoin("alice", peer: peer)
            let bob = try world.connectAndJoin("bob")
            result.ok = world.run {
                world.joined(alice) && world.joined(bob) && world.has(alice, type: "joined") { $0.sender == "bob" }
                    && world.has(alice, type: "status") { $0.sender == "bob" }
            }
            let baseline = world.messages(bob).count
            let again = try world.connect("somebody", peer: peer.lowercased())
            result.ok = result.ok && world.run { world.closeCode(alice) != nil && world.joined(again) }
            again.send(.msg(room: "lobby", text: "new connection", id: "R-1"))
            result.ok = result.ok && world.run { world.has(bob, type: "msg") && world.has(again, type: "ack") }
            world.settle(seconds: 0.2)
            result.oldCode = world.closeCode(alice)
            result.newCode = world.closeCode(again)
            result.welcome = world.messages(again, type: "welcome").first
            result.bobSaw = Array(world.messages(bob).dropFirst(baseline))
            return result
        }
        #expect(result.ok)
        #expect(result.oldCode == CloseCode.replaced.rawValue)
        #expect(result.newCode == nil)
        // The peer id compares case-insensitively and is answered as this connection sent it.
        #expect(result.welcome?.sender == "alice" && result.welcome?.peer == result.peer.lowercased())
        #expect(!result.bobSaw.contains { $0.type == "left" })
        #expect(!result.bobSaw.contains { $0.type == "status" })
        let relayed = result.bobSaw.filter { $0.type == "msg" }
        #expect(relayed.count == 1 && relayed.first?.sender == "alice" && relayed.first?.text == "new connection")
    }

    /// `kick NICK` on the server's stdin closes that client with KICKED; the others see `left` `kicked` and `offline`; `who` drops it.
    @Test func kickedByOperator() async throws {
        let result = try await scenario { world, server -> (ok: Bool, code: UInt64?, aliceCode: UInt64?, left: ChatMessage?, offline: Bool, who: String?) in
            let alice = try world.connect("alice")
            let bob = try world.connect("bob")
            var ok = world.run { world.joined(alice) && world.joined(bob) && world.has(alice, type: "joined") { $0.sender == "bob" } }
            server.process.write("kick bob\n")
            ok = ok && world.run {
                world.closeCode(bob) != nil && world.has(alice, type: "left")
                    && world.has(alice, type: "status") { $0.sender == "bob" && $0.text == "offline" }
            }
            server.process.write("who\n")
            let who = server.process.waitForLine(timeout: 5) { $0.hasSuffix(" connected") && $0.split(separator: " ").count == 2 }
            let offline = world.has(alice, type: "status") { $0.sender == "bob" && $0.text == "offline" }
            return (ok, world.closeCode(bob), world.closeCode(alice), world.messages(alice, type: "left").first, offline, who)
        }
        #expect(result.ok)
        #expect(result.code == CloseCode.kicked.rawValue)
        #expect(result.aliceCode == nil)
        #expect(result.left?.sender == "bob" && result.left?.text == "kicked" && result.left?.room == "lobby")
        #expect(result.offline)
        #expect(result.who == "1 connected")
    }

    /// SIGTERM closes every client with SHUTDOWN and the process exits with status 0.
    @Test(.standaloneOnly("SIGTERM stops one process, which closes its own clients only"))
    func shutdownClosesEveryClientAndExitsZero() async throws {
        let result = try await scenario { world, server -> (ok: Bool, codes: [UInt64?], status: Int32) in
            let sessions = [try world.connect("alice"), try world.connect("bob"), try world.connect("carol", room: "red")]
            var ok = world.run { sessions.allSatisfy { world.has($0, type: "roster") } }
            server.process.signal(SIGTERM)
            ok = ok && world.run { sessions.allSatisfy { world.closeCode($0) != nil } }
            let status = server.process.finish(timeout: 5).status
            return (ok, sessions.map { world.closeCode($0) }, status)
        }
        #expect(result.ok)
        #expect(result.codes == Array(repeating: CloseCode.shutdown.rawValue, count: 3))
        #expect(result.status == 0)
    }

    /// A member that stops reading is closed with SLOW_CONSUMER past `--sendq`; the others get every message promptly and in seq order.
    @Test func slowConsumerClosedOthersKeepUp() async throws {
        struct Result: Sendable {
            var ok = false
            var promptly = true
            var slowCode: UInt64?
            var acks = 0
            var delivered: [String?] = []
            var bobSeqs: [Int64] = []
            var left: ChatMessage?
            var aliceCode: UInt64?
            var bobCode: UInt64?
        }
        let batches = 12
        let perBatch = 16
        let result = try await scenario(server: ["--sendq", "65536", "--flood-burst", "100000", "--flood-rate", "100000"]) { world, _ -> Result in
            var result = Result()
            let alice = try world.connect("alice")
            let bob = try world.connect("bob")
            let slow = try world.connect("slow")
            result.ok = world.run { [alice, bob, slow].allSatisfy { world.joined($0) && world.has($0, type: "roster") } }
            slow.connection.holdsReceiveWindow = true
            let body = String(repeating: "x", count: 4000)
            for batch in 0..<batches {
                for index in 0..<perBatch { alice.send(.msg(room: "lobby", text: body, id: "S-\(batch * perBatch + index)")) }
                let expected = (batch + 1) * perBatch
                let inTime = world.run(seconds: 2) {
                    world.messages(bob, type: "msg").count == expected && world.messages(alice, type: "ack").count == expected
                }
                result.promptly = result.promptly && inTime
            }
            result.ok = result.ok && world.run { world.closeCode(slow) != nil && world.has(bob, type: "left") }
            result.slowCode = world.closeCode(slow)
            result.acks = world.messages(alice, type: "ack").count
            result.delivered = world.messages(bob, type: "msg").map(\.id)
            result.bobSeqs = world.messages(bob, channel: .chat).filter { $0.replay != true }.compactMap(\.seq)
            result.left = world.messages(bob, type: "left").first
            result.aliceCode = world.closeCode(alice)
            result.bobCode = world.closeCode(bob)
            return result
        }
        #expect(result.ok)
        #expect(result.slowCode == CloseCode.slowConsumer.rawValue)
        #expect(result.promptly)
        #expect(result.acks == batches * perBatch)
        #expect(result.delivered == (0..<(batches * perBatch)).map { "S-\($0)" })
        #expect(result.left?.sender == "slow" && result.left?.text == "slow-consumer")
        // The room's events reach bob in seq order, the slow one's `left` included.
        #expect(result.bobSeqs == result.bobSeqs.sorted() && Set(result.bobSeqs).count == result.bobSeqs.count, "\(result.bobSeqs)")
        #expect(result.aliceCode == nil && result.bobCode == nil)
    }

    /// A client sending far past the flood limits gets 10 `rate-limited` errors, then the close with FLOODING; bob sees `left` `flooding`.
    @Test func floodingAfterRateLimited() async throws {
        struct Result: Sendable {
            var ok = false
            var code: UInt64?
            var errors: [ChatMessage] = []
            var acks: [String?] = []
            var delivered: [String?] = []
            var left: ChatMessage?
        }
        let result = try await scenario { world, _ -> Result in
            var result = Result()
            let alice = try world.connect("alice")
            let bob = try world.connect("bob")
            result.ok = world.run { world.joined(alice) && world.joined(bob) && world.has(alice, type: "joined") { $0.sender == "bob" } }
            for index in 1...60 { alice.send(.msg(room: "lobby", text: "flood \(index)", id: "F-\(index)")) }
            result.ok = result.ok && world.run { world.closeCode(alice) != nil && world.has(bob, type: "left") }
            result.code = world.closeCode(alice)
            result.errors = world.messages(alice, type: "error")
            result.acks = world.messages(alice, type: "ack").map(\.id)
            result.delivered = world.messages(bob, type: "msg").map(\.id)
            result.left = world.messages(bob, type: "left").first
            return result
        }
        #expect(result.ok)
        #expect(result.code == CloseCode.flooding.rawValue)
        #expect(result.errors.count == 10)
        #expect(result.errors.allSatisfy { $0.code == "rate-limited" && $0.id != nil })
        #expect(result.acks.count >= 15 && result.acks.count <= 20)
        #expect(Array(result.acks.prefix(15)) == (1...15).map { "F-\($0)" })
        #expect(result.delivered == result.acks)
        #expect(Set(result.errors.compactMap(\.id)).isDisjoint(with: result.acks.compactMap { $0 }))
        #expect(result.left?.sender == "alice" && result.left?.text == "flooding")
    }
}
