import ChatClientKit
import ChatProtocol
import Foundation
import Testing
import TestSupport

/// Room moderation across real nodes on a real Redis (issue 23): claims decided in Redis, bans of
/// a guest connected through another node.
@Suite("cluster moderation", .serialized)
struct ClusterModerationTests {
    struct ClaimOutcome: Sendable {
        var ok = false
        var steps: [String] = []
        /// Per client and room: the `to` of every `op` `owner` it saw, in order.
        var owners: [String: [String: [String]]] = [:]
        /// Per client: the rooms whose claim it was refused `room-owned` (by the request's id).
        var refused: [String: Set<String>] = [:]
    }

    /// alice through the first node and bob through the second, both registered and in 30 rooms,
    /// claim all 30 at once. Each room gets one owner: one `op` `owner` stored, seen by both; the
    /// other claim is answered `room-owned` with its id. Before the fix both claims were stored
    /// (the later one silently won in Redis) and both askers were told `owner`.
    @Test func simultaneousClaimsThroughTwoNodesHaveOneOwner() async throws {
        let server = try ChatServerProcess(ClusterFaultTests.unlimited, nodes: 2)
        defer { server.stop() }
        let rooms = (0..<30).map { "r\($0)" }
        let result = try await onDedicatedThread { () throws -> ClaimOutcome in
            var outcome = ClaimOutcome()
            let world = try ChatTestWorld(port: server.port)
            let clients = [try world.connect("alice", node: 0), try world.connect("bob", node: 1)]
            outcome.ok = world.run(seconds: 20) { clients.allSatisfy { world.joined($0) } }
            for client in clients where outcome.ok {
                let answer = AccountsEndToEndTests.request(world, client, .register(password: "password of \(client.assignedNick ?? "")"),
                                                           answer: "account")
                outcome.ok = answer?.text == "registered"
            }
            outcome.steps.append("registered \(outcome.ok)")
            for room in rooms { for client in clients { client.send(.join(room: room)) } }
            outcome.ok = outcome.ok && world.run(seconds: 30) { rooms.allSatisfy { room in clients.allSatisfy { world.joined($0, room: room) } } }
            outcome.steps.append("joined \(outcome.ok)")
            guard outcome.ok else { return outcome }
            let names = clients.map { $0.assignedNick ?? "" }
            for room in rooms {
                for (index, client) in clients.enumerated() {
                    var claim = ChatMessage.claim(room: room)
                    claim.id = "claim-\(index)-\(room)"
                    client.send(claim)
                }
            }
            // Every claim answered: its asker saw its own `op` `owner`, or was refused.
            func answered(_ index: Int, _ room: String) -> Bool {
                world.has(clients[index], type: "op") { $0.room == room && $0.to == names[index] && $0.text == "owner" }
                    || world.has(clients[index], type: "error") { $0.id == "claim-\(index)-\(room)" }
            }
            outcome.ok = world.run(seconds: 30) { rooms.allSatisfy { room in clients.indices.allSatisfy { answered($0, room) } } }
            outcome.steps.append("answered \(outcome.ok)")
            // Every claim stored is now in its room before these: once each has the other's
            // message in a room, it has seen every `op` of that room.
            for room in rooms {
                for (index, client) in clients.enumerated() { client.send(.msg(room: room, text: "after the claims", id: "after-\(index)-\(room)")) }
            }
            outcome.ok = outcome.ok && world.run(seconds: 30) {
                clients.allSatisfy { world.messages($0, type: "msg").filter { $0.text == "after the claims" }.count == rooms.count }
            }
            outcome.steps.append("barrier \(outcome.ok)")
            for (index, client) in clients.enumerated() {
                var owners: [String: [String]] = [:]
                for op in world.messages(client, type: "op") where op.text == "owner" {
                    owners[op.room ?? "", default: []].append(op.to ?? "")
                }
                outcome.owners[names[index]] = owners
                outcome.refused[names[index]] = Set(world.messages(client, type: "error").filter { $0.code == "room-owned" }.compactMap(\.room))
            }
            return outcome
        }
        #expect(result.ok, "\(result.steps)")
        let alice = result.owners["alice"] ?? [:]
        let bob = result.owners["bob"] ?? [:]
        for room in rooms {
            #expect(alice[room]?.count == 1 && alice[room] == bob[room], "\(room): alice saw \(alice[room] ?? []), bob \(bob[room] ?? [])")
            guard let owner = alice[room]?.first else { continue }
            let loser = owner == "alice" ? "bob" : "alice"
            #expect(result.refused[loser]?.contains(room) == true && result.refused[owner]?.contains(room) != true, "\(room)")
        }
    }

    struct BanOutcome: Sendable {
        var ok = false
        var steps: [String] = []
        var answer: ChatMessage?
        var trollGot: ChatMessage?
        var trollSpeaking: ChatMessage?
        var sameDeviceElsewhere: ChatMessage?
        var sameAddress: ChatMessage?
    }

    /// The owner of lobby through the first node bans a guest connected through the second (with
    /// `--exempt none`, so loopback is an address that bans can name, and `--lobby-claimable`, so
    /// a member may own lobby): the guest gets `banned` and
    /// is out of the room on its node; its device coming back through the first node, and another
    /// guest from its address through the second, are refused `banned`. Before the fix the owner
    /// got `no-such-user` and the guest kept speaking.
    @Test func guestOfAnotherNodeIsBanned() async throws {
        let server = try ChatServerProcess(["--exempt", "none", "--lobby-claimable"] + ClusterFaultTests.unlimited, nodes: 2)
        defer { server.stop() }
        let result = try await onDedicatedThread { () throws -> BanOutcome in
            var outcome = BanOutcome()
            let world = try ChatTestWorld(port: server.port)
            let alice = try world.connect("alice", node: 0)
            outcome.ok = world.run(seconds: 20) { world.joined(alice) }
            outcome.ok = outcome.ok && AccountsEndToEndTests.request(world, alice, .register(password: "alice-pass"), answer: "account")?.text
                == "registered"
            outcome.ok = outcome.ok && AccountsEndToEndTests.request(world, alice, .claim(room: "lobby"), answer: "op")?.to == "alice"
            outcome.steps.append("owner \(outcome.ok)")
            let trollPeer = ChatSession.randomPeerID()
            let troll = try world.connect("troll", peer: trollPeer, node: 1)
            outcome.ok = outcome.ok && world.run(seconds: 20) { world.joined(troll) && world.has(alice, type: "joined") { $0.sender == "troll" } }
            outcome.steps.append("troll in \(outcome.ok)")
            guard outcome.ok else { return outcome }
            var ban = ChatMessage.ban(room: "lobby", target: "troll", reason: "spam")
            ban.id = "ban-1"
            alice.send(ban)
            outcome.ok = world.run(seconds: 20) {
                world.has(alice, type: "banned") { $0.to == "troll" } || world.has(alice, type: "error") { $0.id == "ban-1" }
            }
            outcome.answer = world.messages(alice, type: "banned").last ?? world.messages(alice, type: "error").last
            outcome.ok = outcome.ok && world.run(seconds: 20) { world.has(troll, type: "banned") }
            outcome.trollGot = world.messages(troll, type: "banned").last
            outcome.steps.append("banned \(outcome.ok)")
            troll.send(.msg(room: "lobby", text: "still here", id: "t-1"))
            outcome.ok = outcome.ok && world.run(seconds: 20) { world.has(troll, type: "error") { $0.id == "t-1" } }
            outcome.trollSpeaking = world.messages(troll, type: "error").last
            troll.quit()
            // The same device through the first node, then another guest from the same address.
            let again = try world.connect("troll", peer: trollPeer, node: 0)
            outcome.ok = outcome.ok && world.run(seconds: 20) { world.has(again, type: "error") { $0.room == "lobby" } }
            outcome.sameDeviceElsewhere = world.messages(again, type: "error").last
            let newcomer = try world.connect("newcomer", node: 1)
            outcome.ok = outcome.ok && world.run(seconds: 20) { world.has(newcomer, type: "error") { $0.room == "lobby" } }
            outcome.sameAddress = world.messages(newcomer, type: "error").last
            outcome.steps.append("refused \(outcome.ok)")
            return outcome
        }
        #expect(result.ok, "\(result.steps)")
        #expect(result.answer?.type == "banned" && result.answer?.to == "troll", "\(String(describing: result.answer))")
        #expect(result.trollGot?.to == "troll" && result.trollGot?.text == "spam")
        #expect(result.trollSpeaking?.code == "not-joined", "\(String(describing: result.trollSpeaking))")
        #expect(result.sameDeviceElsewhere?.code == "banned", "\(String(describing: result.sameDeviceElsewhere))")
        #expect(result.sameAddress?.code == "banned", "\(String(describing: result.sameAddress))")
    }
}
