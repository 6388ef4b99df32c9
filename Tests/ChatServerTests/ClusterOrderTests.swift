import ChatClientKit
import ChatProtocol
import Foundation
import Testing
import TestSupport

/// One seq order per room for each client across real nodes on a real Redis: everything a client
/// gets with a seq, its own acks included, comes in increasing seq order, as from one server
/// (issue 23, item 18: an `ack` overtook the other nodes' earlier messages).
@Suite("cluster order", .serialized)
struct ClusterOrderTests {
    struct Outcome: Sendable {
        var ok = false
        var steps: [String] = []
        /// Per client: the seq-bearing chat-stream messages it got live, in arrival order, as
        /// "type:seq".
        var received: [String: [String]] = [:]
    }

    /// Three clients on three nodes in one room each send 6 messages at once, 12 rounds: for each
    /// client the seqs of its live `msg`s, `joined`s, `left`s and `ack`s increase strictly. Before
    /// the fix, a node sent a client the ack of its own message as soon as Redis answered the
    /// append, while the other nodes' earlier messages were still on their way through the room's
    /// channel (4 of 6 runs of the outside probe).
    @Test func acksNeverOvertakeEarlierEvents() async throws {
        let server = try ChatServerProcess(ClusterFaultTests.unlimited, nodes: 3)
        defer { server.stop() }
        let rounds = 12
        let perClient = 6
        let result = try await onDedicatedThread { () throws -> Outcome in
            var outcome = Outcome()
            let world = try ChatTestWorld(port: server.port)
            // One after another, each once its replay and roster are in: every later join is
            // live for the earlier ones.
            var clients: [ChatSession] = []
            for node in 0..<3 {
                let session = try world.connect("c\(node)", node: node)
                clients.append(session)
                outcome.ok = world.run(seconds: 20) { world.joined(session) && world.has(session, type: "roster") }
                outcome.steps.append("c\(node) joined \(outcome.ok)")
                guard outcome.ok else { return outcome }
            }
            outcome.ok = world.run(seconds: 20) {
                clients.indices.allSatisfy { index in
                    clients[(index + 1)...].allSatisfy { later in world.has(clients[index], type: "joined") { $0.sender == later.assignedNick } }
                }
            }
            outcome.steps.append("joins seen \(outcome.ok)")
            for round in 0..<rounds where outcome.ok {
                for index in 0..<perClient {
                    for (number, client) in clients.enumerated() {
                        client.send(.msg(room: "lobby", text: "r\(round) c\(number) m\(index)", id: "r\(round)-c\(number)-\(index)"))
                    }
                }
                let wanted = clients.count * perClient * (round + 1)
                outcome.ok = world.run(seconds: 20) {
                    clients.allSatisfy { world.count($0, type: "msg") + world.count($0, type: "ack") >= wanted }
                }
                outcome.steps.append("round \(round) \(outcome.ok)")
            }
            for (number, client) in clients.enumerated() {
                outcome.received["c\(number)"] = world.messages(client, channel: .chat)
                    .filter { $0.seq != nil && $0.replay != true && $0.room == "lobby" }
                    .map { "\($0.type):\($0.seq!)" }
            }
            return outcome
        }
        #expect(result.ok, "\(result.steps)")
        for (name, received) in result.received.sorted(by: { $0.key < $1.key }) {
            let seqs = received.compactMap { Int64($0.split(separator: ":").last ?? "") }
            let backwards = seqs.indices.dropFirst().first { seqs[$0] <= seqs[$0 - 1] }
            let around = backwards.map { Array(received[max(0, $0 - 6)..<min(received.count, $0 + 3)]) } ?? []
            #expect(backwards == nil, "\(name): out of seq order at \(backwards ?? 0) of \(received.count): \(around)")
            #expect(received.filter { $0.hasPrefix("ack:") }.count == rounds * perClient, "\(name): every ack")
            #expect(received.filter { $0.hasPrefix("msg:") }.count == rounds * perClient * 2, "\(name): every other message")
        }
    }
}
