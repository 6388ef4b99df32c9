import ClusterStore
import Foundation
import EventRuntime
import RedisClient
import TestSupport
import Testing

/// Node liveness and leases against a real Redis.
@Suite(.serialized) struct NodeDirectoryTests {
    /// Runs the loop until `start`'s completion answered. (Callers pass closures, not unapplied
    /// method references: with two methods of one signature the debug build called the wrong one.)
    private func wait<T>(_ harness: RedisHarness, _ start: (@escaping (Result<T, RoomStoreError>) -> Void) -> Void) throws -> T {
        var answer: Result<T, RoomStoreError>?
        start { answer = $0 }
        guard harness.run(until: { answer != nil }), let answer else { throw HarnessFailure("no answer") }
        return try answer.get()
    }

    /// Two nodes join; one keeps renewing, the other stops. The stopped one is claimed once
    /// its deadline passed, by exactly one of two scanners racing in the same round; its next
    /// renew answers `reaped`; an unfinished claim goes to the next scanner after the reap timeout.
    @Test func lostNodeIsClaimedOnce() async throws {
        try await RedisHarness.withServer { harness, server in
            let client = try harness.client(RedisHarness.standalone(server))
            let alive = NodeDirectory(client: client, node: "alive", lifetime: .milliseconds(400), reapTimeout: .milliseconds(300))
            let stopped = NodeDirectory(client: client, node: "stopped", lifetime: .milliseconds(400))
            let joined = [try wait(harness) { alive.join($0) }, try wait(harness) { stopped.join($0) }]
            #expect(joined.allSatisfy { if case .alive = $0 { return true } else { return false } })
            #expect(Set(try wait(harness) { alive.members($0) }.keys) == ["alive", "stopped"])
            #expect(try wait(harness) { alive.claimLost($0) }.isEmpty)
            // "alive" renews every 100 ms and scans twice each time (two scanners racing);
            // "stopped" does nothing.
            var claims: [[String]] = []
            // Until the end of the test; the last scheduled round must have run by then, or its
            // closure would keep the harness (and its loop) alive in a cycle.
            var rounding = true
            var roundPending = false
            func round() {
                roundPending = false
                guard rounding else { return }
                alive.renew { _ in }
                for _ in 0..<2 { alive.claimLost { if case .success(let names) = $0 { claims.append(names) } } }
                roundPending = true
                harness.loop.schedule(at: .now() + .milliseconds(100)) { round() }
            }
            round()
            defer {
                rounding = false
                harness.run { !roundPending }
            }
            #expect(harness.run { claims.contains { !$0.isEmpty } })
            let claimed = claims.filter { !$0.isEmpty }
            #expect(claimed == [["stopped"]])
            #expect(try wait(harness) { stopped.renew($0) } == .reaped)
            // The claim was not finished: past the reap timeout it is handed out again, once.
            #expect(harness.run { claims.filter { !$0.isEmpty }.count == 2 })
            #expect(claims.filter { !$0.isEmpty } == [["stopped"], ["stopped"]])
            try wait(harness) { alive.finishedReaping("stopped", $0) }
            let settled = claims.count
            #expect(harness.run { claims.count >= settled + 10 })
            #expect(claims.dropFirst(settled).allSatisfy { $0.isEmpty })
            #expect(Set(try wait(harness) { alive.members($0) }.keys) == ["alive"])
            // A reaped node may join again.
            let rejoined = try wait(harness) { stopped.join($0) }
            #expect(rejoined != .reaped)
        }
    }

    /// Time nobody could reach the directory (Redis down, its shard failing over) does not count
    /// against the nodes: a node whose deadline passed while the directory went unvisited for a
    /// second (`{nodes}:seen` set back, as after an outage) is not claimed by the first scanner
    /// back, its deadline moved on by that second less the interval; once the directory is
    /// visited as usual, a node past its deadline is claimed.
    @Test func outageOfTheDirectoryLosesNoNode() async throws {
        try await RedisHarness.withServer { harness, server in
            let client = try harness.client(RedisHarness.standalone(server))
            func directory(_ node: String) -> NodeDirectory {
                NodeDirectory(client: client, node: node, lifetime: .milliseconds(400), interval: .milliseconds(100))
            }
            let (scanner, waiting) = (directory("scanner"), directory("waiting"))
            _ = try wait(harness) { scanner.join($0) }
            _ = try wait(harness) { waiting.join($0) }
            func redisNow() throws -> Int64 {
                let parts = try server.cli("TIME").split(whereSeparator: \.isNewline).compactMap { Int64($0) }
                return parts[0] * 1000 + parts[1] / 1000
            }
            // The last visit a second ago; "waiting"'s deadline passed during that second.
            var now = try redisNow()
            try server.cli("SET", "{nodes}:seen", String(now - 1000))
            try server.cli("ZADD", "{nodes}", String(now - 200), "waiting")
            #expect(try wait(harness) { scanner.claimLost($0) }.isEmpty)
            let after = try redisNow()
            // Moved on by the unvisited time less the 100 ms interval: 900 ms plus however long
            // the two commands above and the scan took on a loaded machine (at most `after - now`).
            let moved = try #require(try wait(harness) { scanner.members($0) }["waiting"])
            #expect(moved >= now - 200 + 900 && moved <= after - 200 + 900, "\(moved - now), after \(after - now)")
            #expect(try wait(harness) { waiting.renew($0) } != .reaped)
            // Visited as usual: a deadline long past is a node that stopped (a minute back, so
            // the time between the visits of this test, however slow, does not move it past now).
            now = try redisNow()
            try server.cli("ZADD", "{nodes}", String(now - 60_000), "waiting")
            #expect(try wait(harness) { scanner.claimLost($0) } == ["waiting"])
            #expect(try wait(harness) { waiting.renew($0) } == .reaped)
        }
    }

    /// One process per name (issue 26, item 1): a second instance's join is told the name is
    /// taken (with the first's token) while the first's deadline lasts; the first renews on. Once
    /// the first stopped renewing and its deadline passed, the second takes the name, and the
    /// first's renew is told it is taken. A planned stop holds the name `stopping:` until its
    /// handover ends, and the scan then claims it as stopped, not lost.
    @Test func aNameIsHeldByOneInstance() async throws {
        try await RedisHarness.withServer { harness, server in
            let client = try harness.client(RedisHarness.standalone(server))
            func instance(_ token: String) -> NodeDirectory {
                NodeDirectory(client: client, node: "n1", instance: token, lifetime: .milliseconds(400), interval: .milliseconds(100))
            }
            let (first, second) = (instance("first"), instance("second"))
            let scanner = NodeDirectory(client: client, node: "scanner", lifetime: .seconds(60), interval: .milliseconds(100))
            _ = try wait(harness) { scanner.join($0) }
            func isAlive(_ beat: NodeDirectory.Heartbeat) -> Bool { if case .alive = beat { true } else { false } }
            func holder(_ beat: NodeDirectory.Heartbeat) -> String? { if case .taken(_, let holder) = beat { holder } else { nil } }
            #expect(isAlive(try wait(harness) { first.join($0) }))
            #expect(holder(try wait(harness) { second.join($0) }) == "first")
            #expect(isAlive(try wait(harness) { first.renew($0) }))
            // The first stops renewing; once its deadline passed the name is free. (The scanner
            // renews meanwhile: time nobody visits the directory does not count against a node.)
            let free = MonotonicTime.now() + .milliseconds(500)
            #expect(harness.run {
                scanner.renew { _ in }
                return MonotonicTime.now() >= free
            })
            let joined = try wait(harness) { second.join($0) }
            #expect(isAlive(joined), "\(joined)")
            let renewed = try wait(harness) { first.renew($0) }
            #expect(holder(renewed) == "second", "\(renewed)")
            // A planned stop: held until the handover ends, then claimed as stopped.
            #expect(try wait(harness) { first.leave(after: .milliseconds(300), $0) } == false)
            #expect(try wait(harness) { second.leave(after: .milliseconds(300), $0) } == true)
            #expect(holder(try wait(harness) { first.join($0) }) == "stopping:second")
            #expect(try wait(harness) { scanner.claim($0) }.isEmpty)
            var claims: [NodeDirectory.Claim] = []
            #expect(harness.run {
                scanner.claim { if case .success(let found) = $0 { claims += found } }
                return !claims.isEmpty
            })
            #expect(claims == [NodeDirectory.Claim(node: "n1", stopped: true)])
            // Claimed: the name is nobody's, and the reaper's claim holds it until it is reaped.
            #expect(holder(try wait(harness) { first.join($0) }) == "reaping")
            try wait(harness) { scanner.finishedReaping("n1", $0) }
            #expect(isAlive(try wait(harness) { first.join($0) }))
        }
    }

    /// A lease is taken once; a second holder is told who has it; a takeover answers the
    /// previous holder, and a device's lease naming an account goes only to a holder that proved
    /// it; a stale holder's release frees nothing; the reaper frees what a lost node still held,
    /// and only that.
    @Test func leases() async throws {
        try await RedisHarness.withServer { harness, server in
            let leases = Leases(client: try harness.client(RedisHarness.standalone(server)))
            let nick = Leases.nick("alice")
            #expect(try wait(harness) { leases.take(nick, holder: "a/1", node: "a", $0) } == .taken)
            #expect(try wait(harness) { leases.take(nick, holder: "a/1", node: "a", $0) } == .taken)
            #expect(try wait(harness) { leases.take(nick, holder: "b/7", node: "b", $0) } == .heldBy("a/1"))
            let peer = Leases.peer("p-123")
            func takeOver(_ holder: String, node: String, proving account: String? = nil) throws -> String {
                let outcome = try wait(harness) { leases.takeOverDevice(peer, holder: holder, node: node, provenAccount: account, $0) }
                return "\(outcome.taken) \(outcome.holder ?? "-")"
            }
            #expect(try takeOver("a/1/", node: "a") == "true -")
            _ = try server.cli("SET", peer, "a/1/alice/alice")
            #expect(try takeOver("b/7/", node: "b") == "false a/1/alice/alice")
            #expect(try takeOver("b/7/", node: "b", proving: "mallory") == "false a/1/alice/alice")
            #expect(try takeOver("b/7/", node: "b", proving: "alice") == "true a/1/alice/alice")
            #expect(try wait(harness) { leases.release(peer, holder: "a/1/", node: "a", prefix: true, $0) } == false)
            #expect(try server.cli("GET", peer) == "b/7/")
            let other = Leases.nick("bob")
            #expect(try wait(harness) { leases.take(other, holder: "a/2", node: "a", $0) } == .taken)
            // Node a is lost: its reaper frees alice and bob, not the peer id b took over.
            #expect(try wait(harness) { leases.releaseAll(node: "a", $0) } == [other, nick].sorted())
            #expect(try server.cli("EXISTS", nick) == "0")
            #expect(try server.cli("GET", peer) == "b/7/")
            #expect(try server.cli("EXISTS", Leases.holds(node: "a")) == "0")
            #expect(try wait(harness) { leases.take(nick, holder: "b/8", node: "b", $0) } == .taken)
            #expect(try wait(harness) { leases.release(nick, holder: "b/8", node: "b", $0) } == true)
        }
    }

    /// A hello's leases in one script (issue 26, item 5): the device's lease is taken over only
    /// from a guest or by a connection proving the account its session is logged in to; the nick
    /// the device held through another node comes first, then the first candidate no other device
    /// holds; the device's lease names the connection, nick, account and address, and both leases
    /// are in the node's holds (so its reaper frees them).
    @Test func helloLeasesInOneScript() async throws {
        try await RedisHarness.withServer { harness, server in
            let leases = Leases(client: try harness.client(RedisHarness.standalone(server)))
            func claim(_ digest: String, node: String, connection: String, account: String? = nil,
                       _ nicks: [String]) throws -> Leases.HelloLeases {
                try wait(harness) {
                    leases.claimHello(device: Leases.peer(digest), nicks: nicks, nickKeys: nicks.map { Leases.nick($0.lowercased()) },
                                      node: node, connection: connection, digest: digest, provenAccount: account, address: "10.0.0.1", $0)
                }
            }
            // A guest: alice is another device's, Alice_2 is free.
            _ = try server.cli("SET", Leases.nick("alice"), "a/other")
            #expect(try claim("d1", node: "a", connection: "1", ["alice", "Alice_2"])
                    == Leases.HelloLeases(deviceTaken: true, previous: nil, nick: "Alice_2"))
            #expect(try server.cli("GET", Leases.peer("d1")) == "a/1/Alice_2/-/10.0.0.1")
            #expect(try server.cli("GET", Leases.nick("alice_2")) == "a/d1")
            // The same device through node b: its nick first (taken over: the same owner), before the candidates.
            #expect(try claim("d1", node: "b", connection: "7", ["bob"])
                    == Leases.HelloLeases(deviceTaken: true, previous: "a/1/Alice_2/-/10.0.0.1", nick: "Alice_2"))
            #expect(try server.cli("GET", Leases.nick("alice_2")) == "b/d1")
            #expect(try server.cli("EXISTS", Leases.nick("bob")) == "0")
            // Logged in to carol: only a connection proving carol takes the device over.
            _ = try server.cli("SET", Leases.peer("d2"), "a/2/carol/carol/10.0.0.2")
            #expect(try claim("d2", node: "b", connection: "8", ["dave"])
                    == Leases.HelloLeases(deviceTaken: false, previous: "a/2/carol/carol/10.0.0.2", nick: nil))
            #expect(try claim("d2", node: "b", connection: "8", account: "mallory", ["mallory"]).deviceTaken == false)
            #expect(try server.cli("EXISTS", Leases.nick("dave")) == "0")
            #expect(try claim("d2", node: "b", connection: "8", account: "carol", ["carol"])
                    == Leases.HelloLeases(deviceTaken: true, previous: "a/2/carol/carol/10.0.0.2", nick: "carol"))
            #expect(try server.cli("GET", Leases.peer("d2")) == "b/8/carol/carol/10.0.0.1")
            // Every candidate another device's: the device's lease is taken, without a nick yet.
            #expect(try claim("d3", node: "b", connection: "9", ["alice"]) == Leases.HelloLeases(deviceTaken: true, previous: nil, nick: nil))
            #expect(try server.cli("GET", Leases.peer("d3")) == "b/9/")
            // Node b is lost: its reaper frees what the script took.
            let freed = try wait(harness) { leases.releaseAll(node: "b", $0) }
            #expect(freed == [Leases.nick("alice_2"), Leases.nick("carol"), Leases.peer("d1"), Leases.peer("d2"), Leases.peer("d3")].sorted())
        }
    }
}
