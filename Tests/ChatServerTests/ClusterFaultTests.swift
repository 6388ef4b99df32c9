import ChatClientKit
import ChatProtocol
import Foundation
import Glibc
import QuicEngine
import Testing
import TestSupport

/// Faults under several nodes (docs/CLUSTER.md, issue 15): real chat-server nodes on a real
/// redis-server, protocol clients spread over them, and the fault done to the real processes
/// (kill -9 and restart of Redis on its AOF, a node's subscription killed in Redis). Each runs
/// its own cluster, whatever `QCHAT_TEST_NODES` says.
@Suite("cluster faults", .serialized)
struct ClusterFaultTests {
    static let unlimited = ["--flood-burst", "100000", "--flood-rate", "100000"]

    // MARK: Redis restarted

    struct RestartOutcome: Sendable {
        var ok = false
        var steps: [String] = []
        var ackedBeforeKill: [String: Int64] = [:]
        /// Answers to the messages sent while Redis was down (and to those in flight when it died).
        var downAnswers: [String: String] = [:]
        var joinAnswer: ChatMessage?
        var partAnswer: ChatMessage?
        var closedWhileDown: [UInt64?] = []
        var resentRounds = 0
        /// Acknowledged before the crash and sent again after it.
        var resentAcked: [String] = []
        var end = FaultEnding()
        var closedAtEnd: [UInt64?] = []
    }

    /// Redis killed with kill -9 mid-traffic and started again on its folder (AOF, appendfsync
    /// always): while it is down `msg`, `join` and `part` get `error unavailable` with their ids
    /// and the connections stay; afterwards every acknowledged message is in history exactly
    /// once with its seq, resending an id (acknowledged or not) gets one seq for it, and each
    /// client got the other's messages once, in seq order.
    @Test func redisKilledAndRestartedOnItsAOF() async throws {
        let redis = try RedisServerProcess(options: .init(appendOnly: true, appendFsync: "always"))
        let server = try ChatServerProcess(Self.unlimited, nodes: 2, redis: redis)
        defer { server.stop() }
        let perClient = 60
        let result = try await onDedicatedThread { () throws -> RestartOutcome in
            var outcome = RestartOutcome()
            let world = try ChatTestWorld(port: server.port)
            let alice = try world.connect("alice", node: 0)
            let bob = try world.connect("bob", node: 1)
            outcome.ok = world.run { world.joined(alice) && world.joined(bob) && world.has(alice, type: "joined") { $0.sender == "bob" } }
            outcome.steps.append("joined \(outcome.ok)")
            // Both send a message every 5 ms; Redis dies once 15 of alice's are acknowledged, with
            // the rest still to come or in flight.
            schedule(world, perClient, from: [alice], prefix: "a", spacing: .milliseconds(5))
            schedule(world, perClient, from: [bob], prefix: "b", spacing: .milliseconds(5))
            outcome.ok = outcome.ok && world.run { world.count(alice, type: "ack") >= 15 }
            let connects = server.nodes.map { node in node.process.lineCount { $0.contains(" redis connected ") } }
            redis.kill9()
            for (session, prefix) in [(alice, "a"), (bob, "b")] {
                for (id, answer) in answers(world, session) where answer.type == "ack" && id.hasPrefix(prefix + "-") {
                    outcome.ackedBeforeKill[id] = answer.seq
                }
            }
            // Every message gets its answer; what could not be stored while Redis is down is refused.
            outcome.ok = outcome.ok && world.run(seconds: 20) {
                answers(world, alice).count >= perClient && answers(world, bob).count >= perClient
            }
            outcome.steps.append("answered while down \(outcome.ok)")
            alice.send(ChatMessage(type: "join", room: "elsewhere", id: "J-1"))
            bob.send(ChatMessage(type: "part", room: "lobby", id: "P-1"))
            outcome.ok = outcome.ok && world.run {
                world.has(alice, type: "error") { $0.id == "J-1" } && world.has(bob, type: "error") { $0.id == "P-1" }
            }
            outcome.joinAnswer = world.messages(alice, type: "error").first { $0.id == "J-1" }
            outcome.partAnswer = world.messages(bob, type: "error").first { $0.id == "P-1" }
            for (id, answer) in answers(world, alice) + answers(world, bob)
            where outcome.ackedBeforeKill[id] == nil && answer.type == "error" {
                outcome.downAnswers[id] = answer.code ?? "?"
            }
            outcome.closedWhileDown = [world.closeCode(alice), world.closeCode(bob)]

            // Redis again, from its AOF; each node's command connection comes back by itself.
            try redis.restart()
            for (node, before) in zip(server.nodes, connects) {
                let back = node.process.waitForLine(timeout: 20, skipping: before) { $0.contains(" redis connected ") } != nil
                outcome.ok = outcome.ok && back
            }
            outcome.steps.append("reconnected \(outcome.ok)")
            // Resend, with the same ids, everything not acknowledged, and five that were (a client
            // that missed their acks), until every one is acknowledged.
            let all = (0..<perClient).flatMap { ["a-\($0)", "b-\($0)"] }
            outcome.resentAcked = Array(outcome.ackedBeforeKill.keys.sorted().prefix(5))
            let resent = resendUntilAcknowledged(world, alice: alice, bob: bob, ids: all, again: outcome.resentAcked, rounds: 5)
            outcome.resentRounds = resent.rounds
            outcome.ok = outcome.ok && resent.answered
            outcome.steps.append("resent in \(outcome.resentRounds) rounds \(outcome.ok)")
            // Each gets the other's messages, those stored before the crash and after.
            outcome.end = try FaultEnding(world, alice: alice, bob: bob, ids: all)
            outcome.ok = outcome.ok && outcome.end.complete
            outcome.steps.append("delivered and read back \(outcome.ok)")
            outcome.closedAtEnd = [world.closeCode(alice), world.closeCode(bob)]
            return outcome
        }
        #expect(result.ok, "\(result.steps)")
        #expect(result.ackedBeforeKill.count >= 15)
        #expect(!result.downAnswers.isEmpty, "some messages were sent while Redis was down")
        #expect(result.downAnswers.values.allSatisfy { $0 == "unavailable" }, "\(result.downAnswers)")
        #expect(result.joinAnswer?.code == "unavailable" && result.partAnswer?.code == "unavailable")
        #expect(result.closedWhileDown == [nil, nil] && result.closedAtEnd == [nil, nil])
        // Every id acknowledged, always with one seq, the ones acknowledged before the crash too.
        result.end.checkEachStoredOnce(ids: (0..<perClient).flatMap { ["a-\($0)", "b-\($0)"] }, ackedBefore: result.ackedBeforeKill,
                                       resentAcked: result.resentAcked)
    }

    // MARK: A Redis Cluster shard failover

    struct FailoverOutcome: Sendable {
        var ok = false
        var steps: [String] = []
        var promoted: UInt16 = 0
        var ackedBeforeKill: [String: Int64] = [:]
        /// Answers to the messages sent while the shard had no master.
        var downAnswers: [String: String] = [:]
        /// Each node logged an append the promoted master ran but no replica confirmed.
        var unconfirmedLogged = false
        var resentRounds = 0
        var resentAcked: [String] = []
        /// The last round, sent once the old master was back as a replica: refused ids.
        var refusedAfterRecovery: [String] = []
        var end = FaultEnding()
        var closed: [UInt64?] = []
        /// `PUBSUB SHARDNUMSUB {room:lobby}:live` on the promoted master at the end.
        var liveSubscribers: Int?
        var fillsBefore: [Double] = []
        var fillsAfter: [Double] = []
        /// The nodes' last log lines (debug left out), kept when something failed.
        var nodeLogs: [String] = []
    }

    /// Two nodes with `--cluster-wait-replicas 1` on a 3-master Redis Cluster with a replica per
    /// master. Alice (n1) and Bob (n2) chat in lobby; the master of lobby's slot gets kill -9:
    /// messages get `error unavailable` while the shard has no master, its replica is promoted,
    /// both nodes reach it (their slot maps refreshed) but are refused there (no replica confirms
    /// the writes) until the old master is back as the new one's replica; then the clients resend
    /// every unacknowledged id (and 5 acknowledged ones) until all are acknowledged, and send 20
    /// more each, acknowledged at once. Every acknowledged message is in history exactly once
    /// with its seq, each client got the other's 80 once in seq order, no connection closed, both
    /// nodes' lobby subscriptions are on the promoted master and filled their gap from the stream.
    @Test func redisClusterShardFailover() async throws {
        let cluster = try RedisClusterProcesses(masters: 3, replicasPerMaster: 1)
        defer { cluster.stop() }
        let server = try ChatServerProcess(Self.unlimited + ["--cluster-wait-replicas", "1", "--metrics", "127.0.0.1:0", "--metrics-cache", "0"],
                                           nodes: 2, redisCluster: cluster)
        defer { server.stop() }
        let slot = try #require(Int(try RedisServerProcess.run(port: cluster.ports[0], ["CLUSTER", "KEYSLOT", "{room:lobby}"])))
        let master = try #require(try cluster.owner(of: slot))
        let candidates = try cluster.replicas(of: master)
        try #require(candidates.count == 1)
        let metricsPorts = try server.nodes.map { try #require($0.metricsPort) }
        let result = try await onDedicatedThread { () throws -> FailoverOutcome in
            var outcome = FailoverOutcome()
            func fills() -> [Double] {
                metricsPorts.map { port in
                    HTTPProbe.get(port: port, until: 200).flatMap { ScrapedMetrics($0.body)["qchat_cluster_gap_fills_total"] } ?? -1
                }
            }
            let world = try ChatTestWorld(port: server.port)
            let alice = try world.connect("alice", node: 0)
            let bob = try world.connect("bob", node: 1)
            outcome.ok = world.run { world.joined(alice) && world.joined(bob) && world.has(alice, type: "joined") { $0.sender == "bob" } }
            // 20 each, every one confirmed by the shard's replica before it is acknowledged.
            schedule(world, 20, from: [alice], prefix: "a", spacing: .milliseconds(5))
            schedule(world, 20, from: [bob], prefix: "b", spacing: .milliseconds(5))
            outcome.ok = outcome.ok && world.run { world.count(alice, type: "ack") >= 20 && world.count(bob, type: "ack") >= 20 }
            outcome.steps.append("before \(outcome.ok)")
            outcome.fillsBefore = fills()
            for (id, answer) in answers(world, alice) + answers(world, bob) where answer.type == "ack" { outcome.ackedBeforeKill[id] = answer.seq }
            let unconfirmedMarks = server.nodes.map { node in node.process.lineCount { $0.contains("not confirmed by enough replicas") } }

            try #require(cluster.node(port: master)).kill9()
            // The shard has no master for the failover's 2 s and more: 40 more each, all refused.
            schedule(world, 40, from: [alice], prefix: "a", first: 20, spacing: .milliseconds(10))
            schedule(world, 40, from: [bob], prefix: "b", first: 20, spacing: .milliseconds(10))
            outcome.ok = outcome.ok && world.run(seconds: 20) { answers(world, alice).count >= 60 && answers(world, bob).count >= 60 }
            for (id, answer) in answers(world, alice) + answers(world, bob) where outcome.ackedBeforeKill[id] == nil {
                outcome.downAnswers[id] = answer.type == "error" ? answer.code ?? "?" : answer.type
            }
            outcome.steps.append("answered while down \(outcome.ok)")

            // The replica wins the election and every Redis node sees it serve the slot.
            var promoted: UInt16?
            outcome.ok = outcome.ok && world.run(seconds: 30) {
                promoted = cluster.electedReplica(among: candidates)
                return promoted != nil
            }
            outcome.ok = outcome.ok && world.run(seconds: 30) { (try? cluster.allSee(promoted ?? 0, serving: slot)) == true }
            outcome.promoted = promoted ?? 0
            outcome.steps.append("promoted \(outcome.ok)")
            // Each node reaches the new master (its slot map refreshed), whose writes no replica
            // confirms yet: one unacknowledged id each, sent again every 200 ms, until both nodes
            // logged such a refusal.
            var probing = true
            func probe() {
                guard probing else { return }
                let current = acknowledged(world, [alice, bob])
                for (session, prefix) in [(alice, "a"), (bob, "b")] {
                    if let id = (20..<60).map({ "\(prefix)-\($0)" }).first(where: { current[$0] == nil }) {
                        session.send(.msg(room: "lobby", text: "text of \(id)", id: id))
                    }
                }
                world.loop.schedule(at: .now() + .milliseconds(200)) { probe() }
            }
            probe()
            outcome.unconfirmedLogged = world.run(seconds: 30) {
                zip(server.nodes, unconfirmedMarks).allSatisfy { node, mark in
                    node.process.lineCount { $0.contains("not confirmed by enough replicas") } > mark
                }
            }
            probing = false
            outcome.ok = outcome.ok && outcome.unconfirmedLogged
            outcome.steps.append("refused unconfirmed \(outcome.ok)")

            // The old master comes back on its folder as the new master's replica.
            try cluster.restartKilled(port: master)
            outcome.ok = outcome.ok && world.run(seconds: 30) { (try? cluster.isConfirmingReplica(port: master)) == true }
            outcome.steps.append("replica again \(outcome.ok)")
            // Resend, with the same ids, everything not acknowledged, and five that were, until
            // every one is.
            outcome.resentAcked = Array(outcome.ackedBeforeKill.keys.sorted().prefix(5))
            let resent = resendUntilAcknowledged(world, alice: alice, bob: bob, ids: (0..<60).flatMap { ["a-\($0)", "b-\($0)"] },
                                                 again: outcome.resentAcked, rounds: 10)
            outcome.resentRounds = resent.rounds
            outcome.ok = outcome.ok && resent.answered
            outcome.steps.append("resent in \(outcome.resentRounds) rounds \(outcome.ok)")
            // Traffic goes on: 20 more each, acknowledged the first time.
            let marks = (alice: answers(world, alice).count, bob: answers(world, bob).count)
            schedule(world, 20, from: [alice], prefix: "a", first: 60, spacing: .milliseconds(5))
            schedule(world, 20, from: [bob], prefix: "b", first: 60, spacing: .milliseconds(5))
            outcome.ok = outcome.ok && world.run(seconds: 20) {
                answers(world, alice).count - marks.alice >= 20 && answers(world, bob).count - marks.bob >= 20
            }
            outcome.refusedAfterRecovery = (answers(world, alice).dropFirst(marks.alice) + answers(world, bob).dropFirst(marks.bob))
                .filter { $0.message.type != "ack" }.map(\.id)
            outcome.end = try FaultEnding(world, alice: alice, bob: bob, ids: (0..<80).flatMap { ["a-\($0)", "b-\($0)"] })
            outcome.ok = outcome.ok && outcome.end.complete
            outcome.steps.append("delivered and read back \(outcome.ok)")
            outcome.closed = [world.closeCode(alice), world.closeCode(bob)]
            let shardSubscribers = try RedisServerProcess.run(port: outcome.promoted, ["PUBSUB", "SHARDNUMSUB", "{room:lobby}:live"])
            outcome.liveSubscribers = shardSubscribers.split(separator: "\n").last.flatMap { Int($0) }
            outcome.fillsAfter = fills()
            if !outcome.ok {
                for (index, node) in server.nodes.enumerated() {
                    let lines = (node.process.outputLines + node.process.errorOutput).filter { !$0.contains(" debug ") }
                    outcome.nodeLogs += lines.suffix(60).map { "n\(index + 1): \($0)" }
                }
            }
            return outcome
        }
        let ok = result.ok, steps = result.steps, logs = result.nodeLogs
        #expect(ok, "\(steps)\n\(logs.joined(separator: "\n"))")
        #expect(result.promoted == candidates[0])
        #expect(result.ackedBeforeKill.count == 40)
        let downAnswers = result.downAnswers
        #expect(downAnswers.count == 80 && downAnswers.values.allSatisfy { $0 == "unavailable" }, "\(downAnswers)")
        let unconfirmedLogged = result.unconfirmedLogged
        #expect(unconfirmedLogged)
        #expect(result.refusedAfterRecovery.isEmpty, "\(result.refusedAfterRecovery)")
        #expect(result.closed == [nil, nil])
        result.end.checkEachStoredOnce(ids: (0..<80).flatMap { ["a-\($0)", "b-\($0)"] }, ackedBefore: result.ackedBeforeKill,
                                       resentAcked: result.resentAcked)
        // Both nodes follow lobby on the promoted master, and each filled its gap from the stream.
        #expect(result.liveSubscribers == 2)
        let fills = (before: result.fillsBefore, after: result.fillsAfter)
        #expect(zip(fills.before, fills.after).allSatisfy { $0 >= 0 && $1 > $0 }, "\(fills)")
    }

    // MARK: A subscription cut

    struct CutOutcome: Sendable {
        var ok = false
        var steps: [String] = []
        var killedID = ""
        var resubscribed: [String] = []
        var sent: [String] = []
        var ackSeqs: [String: Int64] = [:]
        /// Live `msg`s (id, seq) per receiver: carol on the sender's node, bob and dave on the cut one.
        var received: [String: [ChatMessage]] = [:]
    }

    /// The second node's pub/sub connection is killed in Redis (`CLIENT KILL ID`) while that
    /// node is stopped (SIGSTOP), and 30 messages are stored and published from the first node
    /// meanwhile: once it runs again, its clients still get every message once, in seq order
    /// (the gap filled from the stream), as does the client on the sender's node.
    @Test func cutSubscriptionIsFilledFromTheStream() async throws {
        let server = try ChatServerProcess(Self.unlimited, nodes: 2)
        defer { server.stop() }
        let redis = try #require(server.redis)
        let cutNode = server.nodes[1]
        let result = try await onDedicatedThread { () throws -> CutOutcome in
            var outcome = CutOutcome()
            let world = try ChatTestWorld(port: server.port)
            let alice = try world.connect("alice", node: 0)
            let carol = try world.connect("carol", node: 0)
            let bob = try world.connect("bob", node: 1)
            let dave = try world.connect("dave", node: 1)
            let receivers = ["carol": carol, "bob": bob, "dave": dave]
            outcome.ok = world.run {
                [alice, bob, carol, dave].allSatisfy { world.joined($0) }
                    && [alice, bob, carol].allSatisfy { session in world.has(session, type: "joined") { $0.sender == "dave" } }
            }
            func delivered(_ count: Int) -> Bool {
                world.count(alice, type: "ack") >= count && receivers.values.allSatisfy { world.count($0, type: "msg") >= count }
            }
            schedule(world, 20, from: [alice], prefix: "m")
            outcome.ok = outcome.ok && world.run { delivered(20) }
            outcome.steps.append("before \(outcome.ok)")
            // The node is stopped, so its subscription cannot come back before the 30 are published.
            cutNode.process.signal(SIGSTOP)
            var stopped = true
            defer { if stopped { cutNode.process.signal(SIGCONT) } }
            let ids = try redis.clientIDs(type: "pubsub", ofProcess: cutNode.process.processIdentifier)
            outcome.killedID = ids.first ?? ""
            let killed = try redis.cli("CLIENT", "KILL", "ID", outcome.killedID)
            outcome.ok = outcome.ok && ids.count == 1 && killed == "1"
            if !outcome.ok {
                outcome.steps.append("pubsub clients: \((try? redis.cli("CLIENT", "LIST", "TYPE", "pubsub")) ?? "?"); node ports "
                                     + "\(ProcessSockets.localTCPPorts(of: cutNode.process.processIdentifier).sorted()); kill said \(killed)")
            }
            schedule(world, 30, from: [alice], prefix: "m", first: 20)
            outcome.ok = outcome.ok && world.run { world.count(alice, type: "ack") >= 50 && world.count(carol, type: "msg") >= 50 }
            outcome.steps.append("published while cut \(outcome.ok)")
            cutNode.process.signal(SIGCONT)
            stopped = false
            schedule(world, 20, from: [alice], prefix: "m", first: 50)
            outcome.ok = outcome.ok && world.run(seconds: 20) { delivered(70) }
            outcome.steps.append("after \(outcome.ok)")
            // Nothing more arrives: no message twice.
            world.settle(seconds: 0.5)
            outcome.resubscribed = try redis.clientIDs(type: "pubsub", ofProcess: cutNode.process.processIdentifier)
            outcome.sent = (0..<70).map { "m-\($0)" }
            for ack in world.messages(alice, type: "ack") { if let id = ack.id, let seq = ack.seq { outcome.ackSeqs[id] = seq } }
            for (name, session) in receivers { outcome.received[name] = world.messages(session, type: "msg").filter { $0.replay != true } }
            return outcome
        }
        #expect(result.ok, "\(result.steps)")
        #expect(!result.killedID.isEmpty && result.resubscribed.count == 1 && result.resubscribed != [result.killedID],
                "killed \(result.killedID), now \(result.resubscribed)")
        #expect(result.ackSeqs.count == 70)
        let seqs = result.sent.compactMap { result.ackSeqs[$0] }
        #expect(seqs == seqs.sorted() && Set(seqs).count == 70)
        for name in ["carol", "bob", "dave"] {
            let got = result.received[name] ?? []
            #expect(got.compactMap(\.id) == result.sent, "\(name): \(got.compactMap(\.id))")
            #expect(got.compactMap(\.seq) == seqs, "\(name)")
        }
    }

    // MARK: One order across three nodes

    struct OrderOutcome: Sendable {
        var ok = false
        var steps: [String] = []
        /// The seq of every message, from its sender's ack.
        var ackSeqs: [String: Int64] = [:]
        /// Per client (c0...c8, and c0's second connection "c0+"): its own acks' ids and the
        /// live messages it received, in arrival order.
        var acked: [String: [String]] = [:]
        var received: [String: [ChatMessage]] = [:]
        var lastSeenBeforeLeaving: Int64 = 0
        var replayed: [ChatMessage] = []
        var rejoinedNode = -1
    }

    /// Nine clients, three per node, send 300 messages in three rounds: every client sees every
    /// message of the rounds it is in once, in one seq order, the one the acks gave; a client that
    /// left after the first round and comes back on another node with `since` gets exactly the
    /// messages it missed, in order, as its replay.
    @Test func oneOrderAndSinceAcrossThreeNodes() async throws {
        let server = try ChatServerProcess(Self.unlimited, nodes: 3)
        defer { server.stop() }
        let result = try await onDedicatedThread { () throws -> OrderOutcome in
            var outcome = OrderOutcome()
            let world = try ChatTestWorld(port: server.port)
            let peer = ChatSession.randomPeerID()
            var clients = try (0..<9).map { index in
                try world.connect("c\(index)", peer: index == 0 ? peer : ChatSession.randomPeerID(), node: index % 3)
            }
            outcome.ok = world.run(seconds: 20) { clients.allSatisfy { world.joined($0) } }
            outcome.steps.append("joined \(outcome.ok)")
            // Round 1: everyone; a message's sender has its ack, everyone else the msg.
            func everyoneHas(_ ids: Range<Int>, among sessions: [ChatSession]) -> Bool {
                let wanted = Set(ids.map { "m-\($0)" })
                return sessions.allSatisfy { session in
                    let seen = world.messages(session, channel: .chat).filter { $0.type == "msg" || $0.type == "ack" }.compactMap(\.id)
                    return Set(seen).isSuperset(of: wanted)
                }
            }
            schedule(world, 100, from: clients, prefix: "m")
            outcome.ok = outcome.ok && world.run(seconds: 30) { everyoneHas(0..<100, among: clients) }
            outcome.steps.append("round 1 \(outcome.ok)")
            // c0 leaves; the others go on without it.
            let leaver = clients[0]
            outcome.lastSeenBeforeLeaving = world.messages(leaver, channel: .chat).compactMap(\.seq).max() ?? 0
            leaver.quit()
            let others = Array(clients.dropFirst())
            outcome.ok = outcome.ok && world.run { others.allSatisfy { session in world.has(session, type: "left") { $0.sender == "c0" } } }
            schedule(world, 100, from: others, prefix: "m", first: 100)
            outcome.ok = outcome.ok && world.run(seconds: 30) { everyoneHas(100..<200, among: others) }
            outcome.steps.append("round 2 \(outcome.ok)")
            // c0 comes back on the next node, with the last seq it saw.
            func joins(of nick: String, seenBy session: ChatSession) -> Int {
                world.messages(session, type: "joined").filter { $0.sender == nick }.count
            }
            let joinsOfC0 = others.map { joins(of: "c0", seenBy: $0) }
            outcome.rejoinedNode = 1
            let returned = try world.connect("c0", peer: peer, since: outcome.lastSeenBeforeLeaving, node: outcome.rejoinedNode)
            outcome.ok = outcome.ok && world.run { world.joined(returned) }
            let chat = world.messages(returned, channel: .chat)
            let ownJoined = chat.firstIndex { $0.type == "joined" && $0.sender == returned.assignedNick && $0.replay != true } ?? chat.endIndex
            outcome.replayed = chat[..<ownJoined].filter { $0.replay == true && $0.type == "msg" }
            clients[0] = returned
            outcome.ok = outcome.ok && world.run {
                zip(others, joinsOfC0).allSatisfy { session, before in joins(of: "c0", seenBy: session) > before }
            }
            // Round 3: everyone again, c0 on its new node.
            schedule(world, 100, from: clients, prefix: "m", first: 200)
            outcome.ok = outcome.ok && world.run(seconds: 30) { everyoneHas(200..<300, among: clients) }
            outcome.steps.append("round 3 \(outcome.ok)")
            world.settle(seconds: 0.3)
            for (index, session) in [(0, leaver)] + clients.enumerated().map({ ($0.offset, $0.element) }) {
                let name = session === returned ? "c0+" : "c\(index)"
                let acks = world.messages(session, type: "ack")
                outcome.acked[name] = acks.compactMap(\.id)
                for ack in acks { if let id = ack.id, let seq = ack.seq { outcome.ackSeqs[id] = seq } }
                outcome.received[name] = world.messages(session, type: "msg").filter { $0.replay != true }
            }
            return outcome
        }
        #expect(result.ok, "\(result.steps)")
        let all = (0..<300).map { "m-\($0)" }
        #expect(Set(result.ackSeqs.keys) == Set(all))
        #expect(Set(result.ackSeqs.values).count == 300, "one seq per message")
        let order = all.sorted { result.ackSeqs[$0] ?? 0 < result.ackSeqs[$1] ?? 0 }
        // What each client should see: c0's first connection rounds 1, its second round 3, the
        // others everything.
        let rounds = (first: Set(all[0..<100]), second: Set(all[100..<200]), third: Set(all[200..<300]))
        for (name, received) in result.received.sorted(by: { $0.key < $1.key }) {
            let expected = name == "c0" ? rounds.first : name == "c0+" ? rounds.third : rounds.first.union(rounds.second).union(rounds.third)
            let ids = received.compactMap(\.id)
            let own = Set(result.acked[name] ?? [])
            #expect(Set(ids).count == ids.count, "\(name) got a message twice")
            #expect(Set(ids).union(own) == expected, "\(name): \(Set(ids).union(own).symmetricDifference(expected).sorted())")
            #expect(ids == order.filter { Set(ids).contains($0) }, "\(name) got them out of seq order")
            #expect(received.allSatisfy { $0.seq == result.ackSeqs[$0.id ?? ""] }, "\(name): a seq differs from the ack's")
        }
        // The replay on the other node: exactly round 2, in order, all after the seq given.
        let replayedIDs = result.replayed.compactMap(\.id)
        #expect(replayedIDs == order.filter { rounds.second.contains($0) }, "\(replayedIDs.count) replayed")
        #expect(result.replayed.allSatisfy { ($0.seq ?? 0) > result.lastSeenBeforeLeaving && $0.seq == result.ackSeqs[$0.id ?? ""] })
    }
}

/// Sends `count` messages from `senders` in turn, one every `spacing`, scheduled on the loop
/// at once (traffic that goes on while the test waits for something else); ids `prefix-N`.
private func schedule(_ world: ChatTestWorld, _ count: Int, from senders: [ChatSession], prefix: String, first: Int = 0,
                     spacing: TimeSpan = .milliseconds(3)) {
    let start = MonotonicTime.now()
    for index in first..<(first + count) {
        let sender = senders[index % senders.count]
        _ = world.loop.schedule(at: start + TimeSpan(nanoseconds: spacing.nanoseconds * UInt64(index - first))) {
            sender.send(.msg(room: "lobby", text: "text of \(prefix)-\(index)", id: "\(prefix)-\(index)"))
        }
    }
}

/// Acknowledgements by id over `sessions` (a resend's too), each with its seq.
private func acknowledged(_ world: ChatTestWorld, _ sessions: [ChatSession]) -> [String: [Int64]] {
    var acks: [String: [Int64]] = [:]
    for session in sessions {
        for (id, answer) in answers(world, session) where answer.type == "ack" { acks[id, default: []].append(answer.seq ?? -1) }
    }
    return acks
}

/// Resends to lobby, with the same ids (alice's `a-N`, bob's `b-N`), every id of `ids` not
/// acknowledged and each of `again` until it is acknowledged a second time, in rounds that each
/// wait for as many answers, until none is left or `rounds` ran. Returns the rounds sent and
/// whether each was answered.
private func resendUntilAcknowledged(_ world: ChatTestWorld, alice: ChatSession, bob: ChatSession, ids: [String], again: [String],
                                     rounds: Int) -> (rounds: Int, answered: Bool) {
    var sent = 0
    for round in 1...rounds {
        let current = acknowledged(world, [alice, bob])
        let pending = ids.filter { current[$0] == nil } + again.filter { current[$0]?.count ?? 0 < 2 }
        if pending.isEmpty { break }
        sent = round
        let marks = (alice: answers(world, alice).count, bob: answers(world, bob).count)
        for id in pending { (id.hasPrefix("a-") ? alice : bob).send(.msg(room: "lobby", text: "text of \(id)", id: id)) }
        let expected = (alice: pending.filter { $0.hasPrefix("a-") }.count, bob: pending.filter { $0.hasPrefix("b-") }.count)
        let answered = world.run(seconds: 20) {
            answers(world, alice).count - marks.alice >= expected.alice && answers(world, bob).count - marks.bob >= expected.bob
        }
        guard answered else { return (sent, false) }
    }
    return (sent, true)
}

/// What a fault test with alice (ids `a-N`) and bob (`b-N`) reads at its end: their acks, the
/// messages each got live, and lobby's history as a new client on the second node reads it.
struct FaultEnding: Sendable {
    /// Each got the other's ids, and the history was read.
    var complete = false
    /// Every ack by id, across the original sends and the resends.
    var acks: [String: [Int64]] = [:]
    var aliceGot: [ChatMessage] = []
    var bobGot: [ChatMessage] = []
    /// The `msg`s of the `history` answer.
    var history: [ChatMessage] = []

    init() {}

    /// Waits until bob got every `a-` id of `ids` and alice every `b-` one, then reads.
    init(_ world: ChatTestWorld, alice: ChatSession, bob: ChatSession, ids: [String]) throws {
        complete = world.run(seconds: 20) {
            Set(world.messages(bob, type: "msg").compactMap(\.id)).isSuperset(of: ids.filter { $0.hasPrefix("a-") })
                && Set(world.messages(alice, type: "msg").compactMap(\.id)).isSuperset(of: ids.filter { $0.hasPrefix("b-") })
        }
        acks = acknowledged(world, [alice, bob])
        aliceGot = world.messages(alice, type: "msg").filter { $0.replay != true }
        bobGot = world.messages(bob, type: "msg").filter { $0.replay != true }
        let reader = try world.connect("reader", node: 1)
        complete = complete && world.run { world.joined(reader) }
        reader.send(.history(room: "lobby", limit: ids.count + 50))
        complete = complete && world.run { world.has(reader, type: "history-end") }
        world.settle(seconds: 0.3)
        // The history answer: what came after the reader's own `joined` (before it, its join's replay).
        let chat = world.messages(reader, channel: .chat)
        let joinedAt = chat.firstIndex { $0.type == "joined" && $0.sender == "reader" && $0.replay != true } ?? chat.endIndex
        history = chat[joinedAt...].filter { $0.type == "msg" && $0.replay == true }
    }

    /// Every id acknowledged, always with one seq; those acknowledged before the fault kept
    /// theirs, and `resentAcked` were acknowledged twice; the history holds each once with its
    /// seq; each client got each of the other's once (and none of its own), in seq order, with
    /// its seq.
    func checkEachStoredOnce(ids: [String], ackedBefore: [String: Int64], resentAcked: [String]) {
        #expect(Set(acks.keys) == Set(ids), "not acknowledged: \(Set(ids).subtracting(acks.keys).sorted())")
        #expect(acks.values.allSatisfy { Set($0).count == 1 }, "\(acks.filter { Set($0.value).count != 1 })")
        for (id, seq) in ackedBefore { #expect(acks[id]?.first == seq, "\(id)") }
        #expect(resentAcked.count == 5 && resentAcked.allSatisfy { acks[$0]?.count == 2 }, "\(resentAcked.map { acks[$0] ?? [] })")
        let historyIDs = history.compactMap(\.id)
        let twice = historyIDs.filter { id in historyIDs.filter { $0 == id }.count > 1 }
        let missing = Set(ids).subtracting(historyIDs).sorted()
        #expect(historyIDs.count == ids.count && Set(historyIDs) == Set(ids),
                "\(historyIDs.count) in history; twice: \(twice); missing: \(missing)")
        #expect(history.allSatisfy { $0.seq == acks[$0.id ?? ""]?.first })
        let perClient = ids.count / 2
        for (got, prefix) in [(bobGot, "a-"), (aliceGot, "b-")] {
            let received = got.compactMap(\.id)
            #expect(received.count == perClient && Set(received).count == perClient && received.allSatisfy { $0.hasPrefix(prefix) },
                    "\(received.count) of \(prefix)")
            let seqs = got.compactMap(\.seq)
            #expect(seqs == seqs.sorted() && seqs.count == Set(seqs).count)
            #expect(got.allSatisfy { $0.seq == acks[$0.id ?? ""]?.first })
        }
    }
}

/// The answers a session got to its requests, by id: acks and errors, in arrival order.
private func answers(_ world: ChatTestWorld, _ session: ChatSession) -> [(id: String, message: ChatMessage)] {
    world.messages(session, channel: .chat).filter { ($0.type == "ack" || $0.type == "error") && $0.id != nil }.map { ($0.id!, $0) }
}
