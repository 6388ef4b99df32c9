import ChatClientKit
import ChatProtocol
import Foundation
import QuicEngine
import Testing
import TestSupport

/// End to end, history on disk across a crash: the server is killed with SIGKILL and a second
/// process is started on the same `--db` (on another port, so the clients reconnect there).
@Suite("chat-server restart and replay", .serialized)
struct RestartReplayTests {
    struct Result: Sendable {
        var ok = false
        /// Before the kill.
        var bobLastSeen: Int64 = 0
        var acksBefore: [String: Int64] = [:]
        var seqsBefore: [Int64] = []
        /// After the restart.
        var replayed: [ChatMessage] = []
        var bobJoinedSeq: Int64?
        var resendAck: ChatMessage?
        var newAck: ChatMessage?
        var bobLive: [ChatMessage] = []
        var seqsAfter: [Int64] = []
        var exitedBeforeRestart = false
    }

    /// After SIGKILL and a restart on the same `--db`: replay with `since` brings every acknowledged message once, in increasing
    /// seq; new events go on above every seq seen before (a gap is allowed, a reuse never); an acked resend keeps its seq.
    @Test(.standaloneOnly("kills the server and restarts it on the same --db (ClusterFaultTests restart Redis)"))
    func ackedMessagesSurviveKillAndReplayWithSince() async throws {
        let database = temporaryDatabasePath()
        defer { removeDatabase(database) }
        let result = try await onDedicatedThread { () throws -> Result in
            var result = Result()
            let alicePeer = ChatSession.randomPeerID()
            let bobPeer = ChatSession.randomPeerID()

            let first = try ChatServerProcess(["--db", database])
            defer { first.stop() }
            let before = try ChatTestWorld(port: first.port)
            let alice = try before.connect("alice", peer: alicePeer)
            let bob = try before.connect("bob", peer: bobPeer)
            result.ok = before.run { before.joined(alice) && before.joined(bob) && before.has(alice, type: "joined") { $0.sender == "bob" } }
            for index in 1...5 { alice.send(.msg(room: "lobby", text: "m\(index)", id: "K-\(index)")) }
            result.ok = result.ok && before.run { before.messages(bob, type: "msg").count == 5 && before.messages(alice, type: "ack").count == 5 }
            result.bobLastSeen = before.messages(bob, channel: .chat).compactMap(\.seq).max() ?? 0
            bob.quit()
            result.ok = result.ok && before.run { before.has(alice, type: "left") { $0.sender == "bob" } }
            for index in 6...10 { alice.send(.msg(room: "lobby", text: "m\(index)", id: "K-\(index)")) }
            result.ok = result.ok && before.run { before.messages(alice, type: "ack").count == 10 }
            for ack in before.messages(alice, type: "ack") {
                if let id = ack.id, let seq = ack.seq { result.acksBefore[id] = seq }
            }
            result.seqsBefore = before.messages(alice, channel: .chat).compactMap(\.seq)
            first.process.signal(SIGKILL)
            _ = first.process.finish(timeout: 5)
            result.exitedBeforeRestart = !first.process.isRunning

            let second = try ChatServerProcess(["--db", database])
            defer { second.stop() }
            let after = try ChatTestWorld(port: second.port)
            let bobAgain = try after.connect("bob", peer: bobPeer, since: result.bobLastSeen)
            result.ok = result.ok && after.run { after.joined(bobAgain) }
            let bobChat = after.messages(bobAgain, channel: .chat)
            let ownJoined = bobChat.firstIndex { $0.type == "joined" && $0.sender == "bob" && $0.replay != true }
            result.replayed = Array(bobChat[..<(ownJoined ?? bobChat.endIndex)].filter { $0.replay == true })
            result.bobJoinedSeq = ownJoined.flatMap { bobChat[$0].seq }

            let lastAcked = result.acksBefore.values.max() ?? 0
            let aliceAgain = try after.connect("alice", peer: alicePeer, since: lastAcked)
            result.ok = result.ok && after.run { after.joined(aliceAgain) && after.has(bobAgain, type: "joined") { $0.sender == "alice" } }
            aliceAgain.send(.msg(room: "lobby", text: "m10", id: "K-10"))
            aliceAgain.send(.msg(room: "lobby", text: "m11", id: "K-11"))
            result.ok = result.ok && after.run { after.messages(aliceAgain, type: "ack").count == 2 && after.has(bobAgain, type: "msg") { $0.id == "K-11" } }
            result.resendAck = after.messages(aliceAgain, type: "ack").first { $0.id == "K-10" }
            result.newAck = after.messages(aliceAgain, type: "ack").first { $0.id == "K-11" }
            result.bobLive = after.messages(bobAgain, channel: .chat).filter { $0.replay != true }
            result.seqsAfter = (after.messages(bobAgain, channel: .chat) + after.messages(aliceAgain, channel: .chat))
                .filter { $0.replay != true && $0.type != "ack" }.compactMap(\.seq)
            return result
        }
        #expect(result.ok)
        #expect(result.exitedBeforeRestart)
        let lastBefore = try #require(result.acksBefore.values.max())
        #expect(result.acksBefore.count == 10)
        // Everything acknowledged after bob's last seen seq, once each, in increasing seq: his own `left`, then m6...m10.
        let replayedSeqs = result.replayed.compactMap(\.seq)
        #expect(replayedSeqs.count == result.replayed.count && zip(replayedSeqs, replayedSeqs.dropFirst()).allSatisfy { $0 < $1 })
        #expect(replayedSeqs.allSatisfy { $0 > result.bobLastSeen })
        #expect(Set(result.acksBefore.values.filter { $0 > result.bobLastSeen }).isSubset(of: Set(replayedSeqs)))
        #expect(result.replayed.first?.type == "left" && result.replayed.first?.sender == "bob")
        let replayedMessages = result.replayed.filter { $0.type == "msg" }
        #expect(replayedMessages.map(\.id) == (6...10).map { "K-\($0)" })
        #expect(replayedMessages.map(\.text) == (6...10).map { "m\($0)" })
        #expect(replayedMessages.allSatisfy { $0.sender == "alice" && $0.seq == result.acksBefore[$0.id ?? ""] && $0.ts != nil })
        // Seq goes on above every seq seen before the kill (docs/PROTOCOL.md, "One server's room log": a gap, never a reuse).
        let seenBefore = (result.seqsBefore + replayedSeqs + [result.bobLastSeen]).max() ?? 0
        #expect((result.bobJoinedSeq ?? 0) > seenBefore)
        #expect(!result.seqsAfter.isEmpty && result.seqsAfter.allSatisfy { $0 > lastBefore })
        #expect(Set(result.seqsAfter).isDisjoint(with: result.seqsBefore))
        // The resend is acked with its original seq and not delivered again; the new one continues.
        #expect(result.resendAck?.seq == result.acksBefore["K-10"])
        #expect(result.resendAck?.room == "lobby")
        let newSeq = try #require(result.newAck?.seq)
        #expect(newSeq > (result.bobJoinedSeq ?? .max))
        #expect(result.bobLive.filter { $0.type == "msg" }.map(\.id) == ["K-11"])
        #expect(result.bobLive.first { $0.type == "msg" }?.seq == newSeq)
    }
}
