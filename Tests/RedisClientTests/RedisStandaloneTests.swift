import Foundation
import EventRuntime
import RedisClient
import TestSupport
import Testing

/// The client against a real redis-server of the test's own.
@Suite(.serialized) struct RedisStandaloneTests {
    /// Commands answer in order; a thousand pipelined INCRs (queued in one loop round, written
    /// together) come back 1...1000 in the order sent.
    @Test func commandsAndPipelining() async throws {
        try await RedisHarness.withServer { harness, server in
            let client = try harness.client(RedisHarness.standalone(server))
            #expect(try harness.reply(client, RedisCommand("SET", "greeting", "hello")) == .status("OK"))
            #expect(try harness.reply(client, RedisCommand("GET", "greeting")) == .bulk(Array("hello".utf8)))
            #expect(try harness.reply(client, RedisCommand("GET", "missing")) == .null)
            var answers: [Int64] = []
            for _ in 0..<1000 {
                client.send(RedisCommand("INCR", "counter")) { result in
                    if case .success(.integer(let value)) = result { answers.append(value) }
                }
            }
            #expect(harness.run { answers.count == 1000 })
            #expect(answers == Array(1...1000))
        }
    }

    /// An error reply is a value: that command gets it, the connection goes on.
    @Test func errorsAreValues() async throws {
        try await RedisHarness.withServer { harness, server in
            let client = try harness.client(RedisHarness.standalone(server))
            _ = try harness.reply(client, RedisCommand("SET", "text", "abc"))
            let error = try harness.reply(client, RedisCommand("INCR", "text"))
            #expect(error.errorText?.hasPrefix("ERR") == true)
            let unknown = try harness.reply(client, RedisCommand("NOSUCHCOMMAND"))
            #expect(unknown.errorText?.contains("unknown command") == true)
            #expect(try harness.reply(client, RedisCommand("PING")) == .status("PONG"))
        }
    }

    /// SUBSCRIBE, SSUBSCRIBE and PSUBSCRIBE on the subscriber connection; PUBLISH and
    /// SPUBLISH on the command connection arrive as message, smessage and pmessage.
    @Test func pubSubPushes() async throws {
        try await RedisHarness.withServer { harness, server in
            let client = try harness.client(RedisHarness.standalone(server))
            let plain = RedisSubscription(.channel, "plain")
            let shard = RedisSubscription(.shard, "{room:x}:live")
            let pattern = RedisSubscription(.pattern, "pat.*")
            for subscription in [plain, shard, pattern] { client.subscribe(subscription) }
            for subscription in [plain, shard, pattern] {
                _ = try harness.waitForEvent { if case .subscriber(.subscribed(subscription, restored: false)) = $0 { return true } else { return false } }
            }
            #expect(try harness.reply(client, RedisCommand("PUBLISH", "plain", "one")) == .integer(1))
            #expect(try harness.reply(client, RedisCommand("SPUBLISH", "{room:x}:live", "two")) == .integer(1))
            #expect(try harness.reply(client, RedisCommand("PUBLISH", "pat.a", "three")) == .integer(1))
            #expect(harness.run { harness.messages.count == 3 })
            #expect(harness.messages.map { String(decoding: $0.payload, as: UTF8.self) } == ["one", "two", "three"])
            #expect(harness.messages.map(\.subscription) == [plain, shard, pattern])
            #expect(harness.messages[2].channel == Array("pat.a".utf8))
            client.unsubscribe(plain)
            _ = try harness.waitForEvent { if case .subscriber(.unsubscribed(plain)) = $0 { return true } else { return false } }
            #expect(try harness.reply(client, RedisCommand("PUBLISH", "plain", "gone")) == .integer(0))
        }
    }

    /// A Redis killed mid-use: the command waiting (a BLPOP) fails with connectionLost, new
    /// commands fail fast with unavailable while it is down, the client reconnects to the
    /// restarted server by itself, and the subscription comes back with the gap flag.
    @Test func restartMidUse() async throws {
        try await RedisHarness.withServer(.init(appendOnly: true, appendFsync: "always")) { harness, server in
            let address = RedisServerAddress(host: "127.0.0.1", port: server.port)
            let client = try harness.client(.standalone(address))
            let room = RedisSubscription(.shard, "{room:r}:live")
            client.subscribe(room)
            _ = try harness.waitForEvent { if case .subscriber(.subscribed(room, restored: false)) = $0 { return true } else { return false } }
            _ = try harness.reply(client, RedisCommand("SET", "kept", "yes"))
            var blocked: Result<RedisReply, RedisFailure>?
            client.send(RedisCommand("BLPOP", "nothing", "0")) { blocked = $0 }
            // The BLPOP is in Redis's hands once Redis lists the client as blocked.
            #expect(try harness.waitUntilOneBlocked(at: RedisServerAddress(host: "127.0.0.1", port: server.port)))
            let before = harness.events.count
            server.kill9()
            #expect(harness.run { blocked != nil })
            guard case .failure(.connectionLost)? = blocked else { Issue.record("BLPOP got \(String(describing: blocked))"); return }
            _ = try harness.waitForEvent(after: before) { if case .disconnected = $0 { return true } else { return false } }
            _ = try harness.waitForEvent(after: before) { if case .subscriptionsInterrupted([room]) = $0 { return true } else { return false } }
            guard case .failure(.unavailable) = try harness.call(client, RedisCommand("PING")) else {
                Issue.record("a command while Redis is down did not fail fast"); return
            }
            try server.restart()
            _ = try harness.waitForEvent(after: before) { if case .connected(address) = $0 { return true } else { return false } }
            _ = try harness.waitForEvent(after: before) { if case .subscriber(.subscribed(room, restored: true)) = $0 { return true } else { return false } }
            // AOF with appendfsync always: what was acknowledged survived the crash.
            #expect(try harness.reply(client, RedisCommand("GET", "kept")) == .bulk(Array("yes".utf8)))
            #expect(try harness.reply(client, RedisCommand("SPUBLISH", "{room:r}:live", "after")) == .integer(1))
            #expect(harness.run { harness.messages.last?.payload == Array("after".utf8) })
        }
    }

    /// A frozen Redis (SIGSTOP: the socket stays open, nothing answers) is noticed by the reply
    /// timeout: the waiting command fails, and once Redis runs again the client is back.
    @Test func frozenServerTimesOut() async throws {
        try await RedisHarness.withServer { harness, server in
            let address = RedisServerAddress(host: "127.0.0.1", port: server.port)
            let client = try harness.client(.standalone(address), settings: RedisHarness.fastSettings(replyTimeout: .milliseconds(600)))
            server.freeze()
            defer { server.thaw() }
            let result = try harness.call(client, RedisCommand("GET", "k"))
            guard case .failure(.connectionLost(let why)) = result else { Issue.record("got \(result)"); return }
            #expect(why.contains("no reply"))
            let before = harness.events.count
            server.thaw()
            _ = try harness.waitForEvent(after: before) { if case .connected(address) = $0 { return true } else { return false } }
            #expect(try harness.reply(client, RedisCommand("PING")) == .status("PONG"))
        }
    }

    /// SELECT from the URL's database runs on every new connection.
    @Test func databaseSelected() async throws {
        try await RedisHarness.withServer { harness, server in
            var settings = RedisHarness.fastSettings()
            settings.database = 3
            let client = try harness.client(RedisHarness.standalone(server), settings: settings)
            _ = try harness.reply(client, RedisCommand("SET", "where", "three"))
            #expect(try server.cli("-n", "3", "GET", "where") == "three")
            #expect(try server.cli("GET", "where") == "")
        }
    }

    /// An owner that stops its client from inside a completion (the connection just died):
    /// the other command that waited on it is answered too (connectionLost, once), no event
    /// follows, and no timer of the released connections ever fires.
    @Test func stoppingFromACompletionIsSafe() async throws {
        let server = try RedisServerProcess()
        defer { server.stop() }
        let witness = try RedisServerProcess()
        defer { witness.stop() }
        try await onDedicatedThread {
            let harness = try RedisHarness()
            let client = try harness.client(RedisHarness.standalone(server))
            let other = try harness.client(RedisHarness.standalone(witness))
            var answers: [Result<RedisReply, RedisFailure>] = []
            client.send(RedisCommand("BLPOP", "nothing", "0")) { result in
                answers.append(result)
                client.stop()
            }
            // The second waits behind the first on the same connection.
            client.send(RedisCommand("BLPOP", "nothing", "0")) { answers.append($0) }
            #expect(try harness.waitUntilOneBlocked(at: RedisServerAddress(host: "127.0.0.1", port: server.port)))
            let eventsBefore = harness.events.filter { $0.client == 0 }.count
            server.kill9()
            #expect(harness.run { answers.count == 2 })
            guard case .failure(.connectionLost) = answers[0], case .failure(.connectionLost) = answers[1] else {
                Issue.record("answers \(answers)"); return
            }
            // Well past every backoff and heartbeat of the stopped client, the loop still runs.
            for _ in 0..<5 { #expect(try harness.reply(other, RedisCommand("PING")) == .status("PONG")) }
            var waited = false
            harness.loop.schedule(at: .now() + .milliseconds(500)) { waited = true }
            #expect(harness.run { waited })
            #expect(harness.events.filter { $0.client == 0 }.count == eventsBefore)
        }
    }
}
