import ChatClientKit
import Foundation
import Glibc
import TestSupport
import Testing

/// Two or three real `chat-server` nodes on a real `redis-server`, driven by `chat-bot` scripts as
/// a user would drive them: what a client sees across nodes (docs/CLUSTER.md).
@Suite("chat-server nodes on Redis", .serialized)
struct ClusterNodesTests {
    /// A Redis (or a 3-master Redis Cluster) and nodes on it, sharing one files folder; stopped
    /// when the test ends.
    final class Nodes {
        let redis: RedisServerProcess
        let redisCluster: RedisClusterProcesses?
        private(set) var servers: [ChatServerProcess] = []
        let files: String

        init(_ count: Int, redis options: RedisServerProcess.Options = RedisServerProcess.Options(), onRedisCluster: Bool = false,
             extra: [String] = []) throws {
            redisCluster = onRedisCluster ? try RedisClusterProcesses() : nil
            redis = try redisCluster?.nodes[0] ?? RedisServerProcess(options: options)
            let url = redisCluster.map { "redis-cluster://" + $0.ports.map { "127.0.0.1:\($0)" }.joined(separator: ",") }
                ?? "redis://127.0.0.1:\(redis.port)"
            files = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-nodes-\(UUID().uuidString.prefix(8))").path
            try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: true)
            for index in 0..<count {
                servers.append(try ChatServerProcess(["--cluster", url, "--node", "n\(index)", "--files", files] + extra))
            }
            for server in servers {
                guard server.process.waitForLine(timeout: 20, where: { $0.contains("cluster node ready") }) != nil else {
                    throw NodeNotReady()
                }
            }
        }

        func port(_ index: Int) -> UInt16 { servers[index].port }

        deinit {
            for server in servers { server.stop() }
            if let redisCluster { redisCluster.stop() } else { redis.stop() }
            try? FileManager.default.removeItem(atPath: files)
        }
    }

    struct NodeNotReady: Error {}

    /// A script run by `chat-bot` against one node; `--verbose` prints every event as it comes.
    static func bot(_ script: String, port: UInt16, verbose: Bool = false) throws -> ChildProcess {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nodes-\(UUID().uuidString).bot").path
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        return try ChildProcess(BuildPaths.product("chat-bot"),
                                ["script", path, "--port", String(port), "--ca", TestCertificates.ca] + (verbose ? ["--verbose"] : []))
    }

    /// Messages, a `dm` and a unique nick across two nodes: each side's bot expects what the other
    /// sends, and the second `alice` (through the other node) is `alice_2`.
    @Test func conversationAcrossNodes() throws {
        let nodes = try Nodes(2)
        let a = try Self.bot("""
            bot alice {
                wait 2s
                say hello from node zero
                expect dm from bob "psst" within 10s
                expect msg from bob "done" within 10s
                wait 3s
            }
            """, port: nodes.port(0))
        let b = try Self.bot("""
            bot bob {
                wait 1s
                expect msg from alice "hello from node zero" within 20s
                dm alice psst
                say done
                wait 500ms
            }
            """, port: nodes.port(1))
        let bobRun = b.finish(timeout: 60)
        #expect(bobRun.status == 0, "\(bobRun.errors)")
        // alice is still connected through node zero: a second alice through node one is alice_2.
        let twin = try Self.bot("bot alice {\n    wait 200ms\n}\n", port: nodes.port(1), verbose: true).finish(timeout: 30)
        #expect(twin.status == 0, "\(twin.errors)")
        #expect(twin.output.contains("\"type\":\"welcome\",\"sender\":\"alice_2\""), "\(twin.output.prefix(1000))")
        let aliceRun = a.finish(timeout: 60)
        #expect(aliceRun.status == 0, "\(aliceRun.errors)")
    }

    /// A file shared through one node is downloaded through the other, whole (the nodes share
    /// their files folder; the record lives in Redis).
    @Test func fileSharedThroughOneNodeDownloadedThroughAnother() throws {
        try transferThroughTwoNodes("upload random 3M", size: 3 << 20)
    }

    /// A private file for a user of another node: the recipient's lease found in Redis, the notice
    /// through its node's inbox, the download through its own node (allowed by its device).
    @Test func privateFileForAUserOfAnotherNode() throws {
        try transferThroughTwoNodes("upload random 2M to bob", size: 2 << 20)
    }

    /// alice on the first node runs `upload` once bob on the second is ready; bob downloads the
    /// file he is told of, which must be `size` bytes.
    private func transferThroughTwoNodes(_ upload: String, size: Int) throws {
        let nodes = try Nodes(2)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-nodes-in-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let uploader = try Self.bot("""
            bot alice {
                expect msg from bob "ready" within 20s
                \(upload)
                wait 1s
            }
            """, port: nodes.port(0))
        let downloader = try Self.bot("""
            bot bob {
                wait 1s
                say ready
                expect file from alice within 30s
                download \(folder)
            }
            """, port: nodes.port(1))
        let fetched = downloader.finish(timeout: 60)
        let sent = uploader.finish(timeout: 60)
        #expect(sent.status == 0, "\(sent.errors)")
        #expect(fetched.status == 0, "\(fetched.errors)")
        let saved = try FileManager.default.contentsOfDirectory(atPath: folder)
        let stored = (try? FileManager.default.attributesOfItem(atPath: folder + "/" + (saved.first ?? ""))[.size] as? Int) ?? 0
        #expect(saved.count == 1 && stored == size, "\(saved)")
    }

    /// An upload interrupted through one node resumes through the other from the bytes held (the
    /// interrupted upload's record lives in Redis, its bytes in the shared files folder).
    @Test func uploadInterruptedOnOneNodeResumesOnAnother() async throws {
        let nodes = try Nodes(2)
        let (first, second) = (nodes.port(0), nodes.port(1))
        let outcome = try await onDedicatedThread { () -> FileResumeTests.Outcome in
            var outcome = FileResumeTests.Outcome()
            let (peer, before) = try FileResumeTests.interruptedHalf(port: first)
            defer { withExtendedLifetime(before) {} }
            try FileResumeTests.resume(ChatTestWorld(port: second), peer: peer, into: &outcome)
            return outcome
        }
        FileResumeTests.check(outcome, firstFits: false)
    }

    /// Two nodes never write one upload at once: while the interrupted upload's partial file is
    /// still locked by a writer (the test holds the lock, as the first node's file worker holds
    /// it until it has written what it received), the resume through the other node waits, then
    /// answers `bad-offset` with what is there; once the lock is free the resume fits and the
    /// stored file is the whole file, byte for byte (before the lock, both nodes appended to the
    /// same file under load and the stored file was corrupt).
    @Test func resumeWaitsUntilTheOtherNodeStoppedWriting() async throws {
        let nodes = try Nodes(2)
        let (first, second) = (nodes.port(0), nodes.port(1))
        let partials = nodes.files + "/partial"
        let outcome = try await onDedicatedThread { () -> FileResumeTests.Outcome in
            var outcome = FileResumeTests.Outcome()
            let (peer, before) = try FileResumeTests.interruptedHalf(port: first)
            defer { withExtendedLifetime(before) {} }
            let names = try FileManager.default.contentsOfDirectory(atPath: partials)
            guard names.count == 1 else { outcome.problems.append("partial files \(names)"); return outcome }
            // Blocks until the first node's worker has let go of it.
            let held = open(partials + "/" + names[0], O_RDONLY | O_CLOEXEC)
            guard held >= 0, flock(held, LOCK_EX) == 0 else { outcome.problems.append("lock: \(errno)"); return outcome }
            var released = false
            defer { if !released { close(held) } }
            try FileResumeTests.resume(ChatTestWorld(port: second), peer: peer, into: &outcome) {
                close(held)
                released = true
            }
            return outcome
        }
        #expect(outcome.firstAnswer?.code == "bad-offset" && outcome.firstAnswer?.offset == Int64(FileResumeTests.half),
                "\(String(describing: outcome.firstAnswer))")
        FileResumeTests.check(outcome, firstFits: false)
    }

    /// kill -9 of a node mid-conversation: within 10 s (PROTOCOL.md section 10) the members of the
    /// other node see its user leave with `node-lost`.
    @Test func nodeKilledMidTraffic() throws {
        let nodes = try Nodes(2)
        let doomed = try Self.bot("""
            bot alice {
                wait 2s
                say before the crash
                wait 60s
            }
            """, port: nodes.port(0))
        defer { doomed.terminate() }
        let survivor = try Self.bot("""
            bot bob {
                wait 1s
                expect msg from alice "before the crash" within 20s
                expect left from alice "lobby node-lost" within 15s
            }
            """, port: nodes.port(1), verbose: true)
        #expect(survivor.waitForLine(timeout: 30, where: { $0.contains("before the crash") }) != nil)
        let killed = Date()
        nodes.servers[0].process.signal(SIGKILL)
        let run = survivor.finish(timeout: 30)
        #expect(run.status == 0, "\(run.errors)")
        #expect(Date().timeIntervalSince(killed) < TestTime.scaled(12), "node-lost within 10 s (and the bot's exit)")
    }

    /// Redis restarted without its data (no persistence): the node notices (the epoch changed),
    /// raises the seq of every room it follows above the ones clients saw, and closes its
    /// connections (their leases went with the data); a client coming back gets seqs above them.
    @Test func seqsNeverGoBackAfterRedisLostItsData() throws {
        let nodes = try Nodes(1)
        let before = try Self.bot("""
            bot alice {
                say one
                say two
                say three
                wait 60s
            }
            """, port: nodes.port(0), verbose: true)
        defer { before.terminate() }
        #expect(before.waitForLine(timeout: 20, where: { $0.contains("\"type\":\"ack\"") && $0.contains("\"seq\":4") }) != nil)
        nodes.redis.kill9()
        try nodes.redis.restart()
        #expect(nodes.servers[0].process.waitForLine(timeout: 20, where: { $0.contains("redis lost its data") }) != nil)
        #expect(before.waitForLine(timeout: 20, where: { $0.contains("lost its place in the cluster") }) != nil)
        #expect(nodes.servers[0].process.waitForLine(timeout: 20, skipping: 1, where: { $0.contains("cluster node ready") }) != nil)
        let after = try Self.bot("bot alice {\n    say after the loss\n    wait 500ms\n}\n", port: nodes.port(0), verbose: true)
            .finish(timeout: 30)
        #expect(after.status == 0, "\(after.errors)")
        let ack = after.output.split(separator: "\n").first { $0.contains("\"type\":\"ack\"") } ?? ""
        let seq = ack.range(of: "\"seq\":").flatMap { Int(ack[$0.upperBound...].prefix { $0.isNumber }) } ?? 0
        #expect(seq > 1_000, "\(ack)")
    }

    /// The same on a 3-master Redis Cluster (`redis-cluster://`): three rooms whose slots are on
    /// three masters, events through sharded pub/sub, each room's speaker and listener on two
    /// different nodes.
    @Test func nodesOnARedisCluster() throws {
        let nodes = try Nodes(3, onRedisCluster: true)
        // Three rooms whose slots are on three different masters.
        var roomByMaster: [UInt16: String] = [:]
        for candidate in (0..<200).map({ "room\($0)" }) where roomByMaster.count < 3 {
            let slot = Int(try RedisServerProcess.run(port: nodes.redis.port, ["CLUSTER", "KEYSLOT", "{room:\(candidate)}:seq"]))!
            if let master = try nodes.redisCluster!.owner(of: slot), roomByMaster[master] == nil { roomByMaster[master] = candidate }
        }
        let rooms = roomByMaster.values.sorted()
        #expect(rooms.count == 3)
        var bots: [ChildProcess] = []
        for (index, room) in rooms.enumerated() {
            bots.append(try Self.bot("""
                bot speaker\(index) \(room) {
                    wait 2s
                    say hello \(room)
                    expect msg from listener\(index) "back in \(room)" within 20s
                }
                """, port: nodes.port(index)))
            bots.append(try Self.bot("""
                bot listener\(index) \(room) {
                    expect msg from speaker\(index) "hello \(room)" within 20s
                    say back in \(room)
                    wait 500ms
                }
                """, port: nodes.port((index + 1) % 3)))
        }
        for bot in bots {
            let run = bot.finish(timeout: 60)
            #expect(run.status == 0, "\(run.errors)")
        }
        // Each room's events are on its own master.
        for (master, room) in roomByMaster {
            #expect(try RedisServerProcess.run(port: master, ["XLEN", "{room:\(room)}:events"]) != "0")
        }
    }

    /// A node's metrics page has the cluster's families, counting what the conversation did: the
    /// node ready, Redis connected, room events appended and delivered, a room followed.
    @Test func metricsCountTheClusterWork() throws {
        let nodes = try Nodes(2, extra: ["--metrics", "127.0.0.1:0", "--metrics-cache", "0"])
        let talker = try Self.bot("bot alice {\n    say one\n    say two\n    wait 300ms\n}\n", port: nodes.port(0)).finish(timeout: 30)
        #expect(talker.status == 0, "\(talker.errors)")
        let metricsPort = try #require(nodes.servers[0].metricsPort)
        let page = try #require(HTTPProbe.get(port: metricsPort, until: 200))
        let metrics = ScrapedMetrics(page.body)
        #expect(metrics["qchat_cluster_ready"] == 1 && metrics["qchat_cluster_redis_connected"] == 1)
        // joined, two msgs and the left: four events stored and delivered back.
        #expect(metrics["qchat_cluster_appends_total{outcome=\"stored\"}"] == 4, "\(page.body.prefix(4000))")
        #expect(metrics["qchat_cluster_events_delivered_total"].map { $0 >= 3 } == true)
        #expect(metrics["qchat_cluster_append_duration_seconds_count"] == 4)
        #expect(metrics["qchat_cluster_appends_total{outcome=\"failed\"}"] == 0)
    }

    /// The nodes of one chat system share one `--files` folder (issue 23, item 21: a node on a
    /// folder of its own answered a download of another node's file with its header and then a
    /// reset). A node started on another folder than the running node's stops before it is ready,
    /// status 1, saying why on stderr; one more node on the shared folder starts and serves.
    @Test func nodeOnAFolderOfItsOwnRefusesToStart() throws {
        let nodes = try Nodes(1)
        let own = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-own-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: own) }
        let cluster = ["--cluster", "redis://127.0.0.1:\(nodes.redis.port)"]
        let stray = try ChildProcess(BuildPaths.product("chat-server"), ["--port", "0", "--cert", TestCertificates.serverCertificate,
                                                                         "--key", TestCertificates.serverKey, "--node", "stray",
                                                                         "--files", own] + cluster)
        let stopped = stray.waitForExit(timeout: 30)
        let run = stray.finish(timeout: 5)
        #expect(stopped, "a node on a folder of its own kept running")
        #expect(run.status == 1)
        #expect(run.errors.contains("chat-server: the --files folder \(own) is not the one the other nodes use"), "\(run.errors.suffix(800))")
        #expect(!run.errors.contains("cluster node ready"))
        let second = try ChatServerProcess(cluster + ["--node", "second", "--files", nodes.files])
        defer { second.stop() }
        #expect(second.process.waitForLine(timeout: 20, where: { $0.contains("cluster node ready") }) != nil)
    }

    /// A store written before parties (version 1.1: records of 17 fields, interrupted uploads of
    /// 11) is given what eviction and the upload limits count when the first node joins: the
    /// guests' party holds the file, everyone's uploads their bytes and count.
    @Test func storeWrittenBeforePartiesIsGivenThem() throws {
        let nodes = try Nodes(0)
        let sha = String(repeating: "ab", count: 32)
        let record = ["f1", sha, "1000", "old.bin", "lobby", "3", "1700000000000", "alice", "", "PEER", "u1", "peer:PEER", "", "", "",
                      "d1:u1", ""].joined(separator: "\t")
        let partial = ["k1", "PEER", "u2", "peer:PEER", "lobby", "", "half.bin", "500", sha, "1700000000001", "d1:u2"].joined(separator: "\t")
        for command in [["HSET", "{files}:records", "f1", record], ["HSET", "{files}:uploads", "d1:u1", "f1"],
                        ["HSET", "{files}:content", sha, "1"], ["SET", "{files}:bytes", "1000"], ["HSET", "{files}:owners", "peer:PEER", "1000"],
                        ["ZADD", "{files}:order", "1700000000000", "f1"], ["HSET", "{files}:partials", "k1", partial],
                        ["HSET", "{files}:partial-of", "d1:u2", "k1"], ["HSET", "{files}:partial-owners", "peer:PEER", "500"],
                        ["ZADD", "{files}:partial-age", "1700000000001", "k1"]] {
            _ = try RedisServerProcess.run(port: nodes.redis.port, command)
        }
        let node = try ChatServerProcess(["--cluster", "redis://127.0.0.1:\(nodes.redis.port)", "--node", "n0", "--files", nodes.files])
        defer { node.stop() }
        #expect(node.process.waitForLine(timeout: 20, where: { $0.contains("cluster node ready") }) != nil)
        #expect(try nodes.redis.cli("ZSCORE", "{files}:parties", "guests") == "1000")
        #expect(try nodes.redis.cli("ZRANGE", "{files}:party:guests", "0", "-1") == "f1")
        #expect(try nodes.redis.cli("HGET", "{files}:partial-owners", "*") == "500")
        #expect(try nodes.redis.cli("HGET", "{files}:partial-counts", "*") == "1")
        #expect(try nodes.redis.cli("HGET", "{files}:partial-counts", "peer:PEER") == "1")
        #expect(try nodes.redis.cli("GET", "{files}:parties-built") == "1")
    }
}
