@testable import ChatServer
import ChatClientKit
import ChatProtocol
import Foundation
import TestSupport
import Testing

/// `dm` receipts shared by the nodes (PROTOCOL.md section 10): two real `chat-server` nodes on a
/// real `redis-server`.
@Suite("cluster direct messages", .serialized)
struct ClusterDirectMessageTests {
    struct Outcome: Sendable {
        var ok = false
        var steps: [String] = []
        /// Each ack's id and stamp, for the first sends and for the resends through the other node.
        var first: [String: Int64] = [:]
        var again: [String: Int64] = [:]
        /// The texts of the `dm`s each recipient got.
        var bobGot: [String] = []
        var carolGot: [String] = []
        /// The first connection's close code (REPLACED).
        var replacedCode: UInt64?
        /// Each receipt's TTL in Redis, read as soon as its ack arrived.
        var receiptTTLs: [String: Int] = [:]
    }

    /// alice (node 0) sends a `dm` to bob (node 1) and one to carol (node 0), both acknowledged;
    /// then her device comes back through node 1 (the first connection is REPLACED) and sends both
    /// again with the same ids, as a client that lost the acks does: each is acknowledged with its
    /// first stamp, and bob and carol have each got theirs once. A new id is delivered. The receipts
    /// in Redis expire after 600 s.
    @Test func resendThroughAnotherNodeIsDeliveredOnce() async throws {
        let server = try ChatServerProcess(ClusterFaultTests.unlimited, nodes: 2)
        defer { server.stop() }
        let redis = try #require(server.redis)
        let peer = ChatSession.randomPeerID()
        let result = try await onDedicatedThread { () throws -> Outcome in
            var outcome = Outcome()
            let world = try ChatTestWorld(port: server.port)
            let alice = try world.connect("alice", peer: peer, node: 0)
            let bob = try world.connect("bob", node: 1)
            let carol = try world.connect("carol", node: 0)
            outcome.ok = world.run { [alice, bob, carol].allSatisfy { world.joined($0) } }
            func stamps(_ session: ChatSession) -> [String: Int64] {
                Dictionary(world.messages(session, type: "ack").map { ($0.id ?? "", $0.ts ?? 0) }) { $1 }
            }
            func dms(_ session: ChatSession) -> [String] { world.messages(session, type: "dm").map(\.text) }
            alice.send(ChatMessage(type: "dm", text: "to bob", id: "d1", to: "bob"))
            alice.send(ChatMessage(type: "dm", text: "to carol", id: "d2", to: "carol"))
            outcome.ok = outcome.ok && world.run { stamps(alice).count == 2 && dms(bob).count == 1 && dms(carol).count == 1 }
            outcome.first = stamps(alice)
            outcome.steps.append("first sends \(outcome.ok)")
            // The TTLs are read at once: a run slowed to minutes (a sanitized build) must not
            // outlast the receipts it checks.
            func readTTLs(_ ids: [String]) throws {
                for id in ids {
                    let key = ClusterLink.directReceiptKey(digest: ClusterLink.digest(ofPeer: peer), id: id)
                    outcome.receiptTTLs[id] = Int(try redis.cli("TTL", key).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -9
                }
            }
            try readTTLs(["d1", "d2"])

            let moved = try world.connect("alice", peer: peer, node: 1)
            outcome.ok = outcome.ok && world.run { world.joined(moved) && world.closeCode(alice) != nil }
            outcome.replacedCode = world.closeCode(alice)
            moved.send(ChatMessage(type: "dm", text: "to bob", id: "d1", to: "bob"))
            moved.send(ChatMessage(type: "dm", text: "to carol", id: "d2", to: "carol"))
            moved.send(ChatMessage(type: "dm", text: "new", id: "d3", to: "bob"))
            outcome.ok = outcome.ok && world.run { stamps(moved).count == 3 && dms(bob).count >= 2 }
            try readTTLs(["d3"])
            // Anything delivered twice would arrive with or before the new one.
            world.settle(seconds: 0.3)
            outcome.again = stamps(moved)
            outcome.bobGot = dms(bob)
            outcome.carolGot = dms(carol)
            outcome.steps.append("resends \(outcome.ok)")
            return outcome
        }
        #expect(result.ok, "\(result.steps)")
        #expect(result.replacedCode == CloseCode.replaced.rawValue)
        #expect(result.first.keys.sorted() == ["d1", "d2"])
        #expect(result.again.filter { $0.key != "d3" } == result.first, "\(result.again) vs \(result.first)")
        #expect(result.again["d3"] != nil)
        #expect(result.bobGot == ["to bob", "new"] && result.carolGot == ["to carol"], "\(result.bobGot) \(result.carolGot)")
        for id in ["d1", "d2", "d3"] {
            let ttl = result.receiptTTLs[id] ?? -9
            #expect((1...600).contains(ttl), "TTL of the receipt of \(id): \(ttl)")
        }
    }
}
