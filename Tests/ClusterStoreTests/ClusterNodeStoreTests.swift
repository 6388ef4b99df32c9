import ChatServerCore
@testable import ClusterStore
import EventRuntime
import RedisClient
import Testing

/// Nodes against one in-memory store (``InMemoryRedis``): what their commands leave there.
@Suite struct ClusterNodeStoreTests {
    private func startedNode(_ name: String, instance: String? = nil, on store: InMemoryRedis) -> NodeHarness {
        let harness = NodeHarness(node: name, instance: instance)
        harness.take(harness.node.start())
        harness.take(harness.node.connected(server: "memory"))
        harness.serve(from: store)
        return harness
    }

    /// Two nodes join; one stops renewing; the other's scan claims it, takes its user out of the
    /// room they shared (not its own user), frees its leases and records; a new run of the lost
    /// node then joins under the name.
    @Test func aLostNodeIsReapedByTheOther() {
        let store = InMemoryRedis()
        let first = startedNode("n1", on: store)
        let second = startedNode("n2", on: store)
        #expect(first.node.isReady && second.node.isReady)
        #expect(first.node.epoch == second.node.epoch)
        #expect(store.sortedSets["{nodes}"]?.keys.sorted() == ["n1", "n2"])
        // n2's user alice and n1's user bob are in lobby; alice's leases are n2's.
        store.sets["{node:n2}:rooms"] = ["lobby"]
        store.sets["{node:n1}:rooms"] = ["lobby"]
        store.hashes["{room:lobby}:members"] = ["alice": "n2/d1 online Alice -", "bob": "n1/d2 online Bob bob"]
        store.strings["{nick:alice}"] = "n2/d1"
        store.strings["{peer:d1}"] = "n2/c7/Alice/-/192.0.2.1"
        store.strings["{nick:carol}"] = "n1/d3"
        store.sets["{node:n2}:holds"] = ["{nick:alice}", "{peer:d1}", "{nick:carol}"]

        // n2 stops; n1 renews (its heartbeat thread) and scans after n2's place ran out.
        store.clock += 7_000
        let renewal = store.execute(first.node.configuration.directory.renew)
        first.take(first.node.renewed(renewal.flatMap(NodeDirectoryCommands.heartbeat), now: first.now))
        first.fire(.heartbeat)
        first.serve(from: store)
        let alice = MemberRecord(nick: "Alice", account: nil, status: .online, onThisNode: false, device: "d1")
        #expect(first.reports.last == .reap(node: "n2", room: "lobby", [alice]))
        #expect(first.logs.contains("node lost"))
        #expect(first.node.figures.nodesReaped == 1)
        #expect(first.node.figures.peerNodes == 0)
        #expect(store.strings["{nick:alice}"] == nil)
        #expect(store.strings["{peer:d1}"] == nil)
        // A lease n1 took over meanwhile stays.
        #expect(store.strings["{nick:carol}"] == "n1/d3")
        #expect(store.sets["{node:n2}:holds"] == nil)
        #expect(store.sets["{node:n2}:rooms"] == nil)
        #expect(store.sortedSets["{nodes}:reaping"]?["n2"] == nil)
        #expect(store.sets["{node:n1}:rooms"] == ["lobby"])

        // A new run of n2: the name is free, its earlier run's leftovers are gone already.
        let restarted = startedNode("n2", instance: "token-n2-again", on: store)
        #expect(restarted.node.isReady)
        #expect(restarted.reports == [.serverBans([]), .ready])
    }

    /// A second process started under a running node's name waits, sees the holder's deadline
    /// move (it renews), and stops; the running node keeps its name.
    @Test func aSecondInstanceOfARunningNodeStops() {
        let store = InMemoryRedis()
        let running = startedNode("n1", on: store)
        let second = startedNode("n1", instance: "token-second", on: store)
        #expect(!second.node.isReady)
        #expect(second.logs.contains("node name held; waiting"))
        store.clock += 2_000
        let renewal = store.execute(running.node.configuration.directory.renew)
        running.take(running.node.renewed(renewal.flatMap(NodeDirectoryCommands.heartbeat), now: running.now))
        second.fire(.join)
        second.serve(from: store)
        #expect(second.node.nameLost)
        #expect(second.reports == [.nameTaken("another running instance holds this node's name")])
        #expect(running.node.isReady)
        #expect(store.hashes["{nodes}:instances"]?["n1"] == "token-n1")
    }

    /// A planned stop's name is handed over: the scanner reports it stopped, not lost.
    @Test func aPlannedStopIsReapedAsStopped() {
        let store = InMemoryRedis()
        let leaving = startedNode("n2", on: store)
        let scanner = startedNode("n1", on: store)
        leaving.take(leaving.node.leave())
        leaving.serve(from: store)
        #expect(leaving.leftCount == 1)
        #expect(store.hashes["{nodes}:instances"]?["n2"] == "stopping:token-n2")
        store.clock += 7_000
        let renewal = store.execute(scanner.node.configuration.directory.renew)
        scanner.take(scanner.node.renewed(renewal.flatMap(NodeDirectoryCommands.heartbeat), now: scanner.now))
        scanner.fire(.heartbeat)
        scanner.serve(from: store)
        #expect(scanner.logs.contains("node stopped"))
        #expect(!scanner.logs.contains("node lost"))
        #expect(scanner.node.figures.nodesReaped == 1)
    }

    /// Redis emptied under a running node: the heartbeat finds it, the followed rooms' counters
    /// go above what the node delivered, and the node joins the emptied store again.
    @Test func anEmptiedStoreIsRecovered() {
        let store = InMemoryRedis()
        let harness = startedNode("n1", on: store)
        harness.followed = [("@inbox:n1", 0), ("lobby", 250)]
        store.flushAll()
        harness.fire(.heartbeat)
        harness.serve(from: store)
        #expect(store.strings["{room:lobby}:seq"] == "1250")
        #expect(store.strings["{room:@inbox:n1}:seq"] == "1000")
        #expect(harness.reports.suffix(3) == [.membershipLost, .serverBans([]), .ready])
        #expect(harness.node.isReady)
        #expect(harness.node.epochChecked)
        #expect(store.strings["{meta}:epoch"] == harness.node.epoch)
        #expect(store.strings["{files}:folder"] == "mark-1")
        #expect(store.sortedSets["{nodes}"]?["n1"] != nil)
    }
}
