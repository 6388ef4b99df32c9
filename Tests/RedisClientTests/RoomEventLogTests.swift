import ClusterStore
import Foundation
import EventRuntime
import RedisClient
import TestSupport
import Testing

/// The room-event script and its reads against a real redis-server.
@Suite(.serialized) struct RoomEventLogTests {
    /// Two clients (two connections) appending to one room at once: every seq is assigned
    /// once, 1...N with none missing, and each client sees its own seqs strictly increasing.
    @Test func seqStrictlyIncreasesUnderConcurrentCallers() async throws {
        try await RedisHarness.withServer { harness, server in
            let logs = try (0..<2).map { _ in RoomEventLog(client: try harness.client(RedisHarness.standalone(server)), historyLength: 1000) }
            var seqs: [[Int64]] = [[], []]
            var failures = 0
            for round in 0..<300 {
                for (index, log) in logs.enumerated() {
                    log.append(room: "lobby", event: Array("m\(index)-\(round)".utf8)) { result in
                        switch result {
                        case .success(let append): seqs[index].append(append.seq)
                        case .failure: failures += 1
                        }
                    }
                }
            }
            #expect(harness.run { seqs[0].count + seqs[1].count + failures == 600 })
            #expect(failures == 0)
            for own in seqs { #expect(own == own.sorted() && Set(own).count == own.count) }
            #expect((seqs[0] + seqs[1]).sorted() == Array(1...600))
            // The stream holds them in seq order, each with its own text.
            let stored = try harness.events(logs[0], room: "lobby", after: 0, limit: 1000)
            #expect(stored.map(\.seq) == Array(1...600))
            #expect(Set(stored.map(\.payload)).count == 600)
        }
    }

    /// Data lost in place (issue 26, item 2): an append that knows the room reached a seq its
    /// counter is below now (the room's keys deleted, as eviction or FLUSHALL would), or that
    /// knows another epoch than the store's, is refused (`storeLost`) and stores nothing; with
    /// what the store has, it is stored.
    @Test func appendFindsDataLostInPlace() async throws {
        try await RedisHarness.withServer { harness, server in
            let log = RoomEventLog(client: try harness.client(RedisHarness.standalone(server)), historyLength: 100)
            for index in 1...3 { _ = try harness.append(log, room: "lobby", event: "e\(index)").get() }
            #expect(try harness.append(log, room: "lobby", event: "e4", knownSeq: 3).get().seq == 4)
            try server.cli("DEL", "{room:lobby}:seq", "{room:lobby}:events")
            let refused = try harness.append(log, room: "lobby", event: "e5", knownSeq: 4).get()
            #expect(refused.storeLost && refused.seq == 0)
            #expect(try server.cli("EXISTS", "{room:lobby}:seq", "{room:lobby}:events") == "0")
            // The epoch, on one Redis: the same is stored, another or none is refused.
            try server.cli("SET", "{meta}:epoch", "E1")
            #expect(try harness.append(log, room: "lobby", event: "e6", epoch: ("{meta}:epoch", "E1")).get().seq == 1)
            #expect(try harness.append(log, room: "lobby", event: "e7", epoch: ("{meta}:epoch", "E0")).get().storeLost)
            try server.cli("DEL", "{meta}:epoch")
            #expect(try harness.append(log, room: "lobby", event: "e8", dedupe: "p:1", epoch: ("{meta}:epoch", "E1")).get().storeLost)
            #expect(try server.cli("GET", "{room:lobby}:seq") == "1")
        }
    }

    /// The script publishes "seq payload" on the room's channel; a subscriber gets it with the
    /// same seq the appender got.
    @Test func publishesWithSeq() async throws {
        try await RedisHarness.withServer { harness, server in
            let log = RoomEventLog(client: try harness.client(RedisHarness.standalone(server)), historyLength: 100, sharded: true)
            let subscription = log.subscription(room: "dev")
            log.client.subscribe(subscription)
            _ = try harness.waitForEvent { if case .subscriber(.subscribed(subscription, _)) = $0 { return true } else { return false } }
            let first = try harness.append(log, room: "dev", event: "{\"text\":\"a b\"}").get()
            let second = try harness.append(log, room: "dev", event: "second").get()
            #expect((first.seq, second.seq) == (1, 2))
            #expect(harness.run { harness.messages.count == 2 })
            let published = harness.messages.compactMap { RoomEvent(published: $0.payload) }
            #expect(published == [RoomEvent(seq: 1, payload: Array("{\"text\":\"a b\"}".utf8)), RoomEvent(seq: 2, payload: Array("second".utf8))])
        }
    }

    /// The meta (kind and origin, one token) is stored and published with the event and comes
    /// back from reads; a meta with a space or over 128 bytes is refused before anything is sent.
    @Test func metaTravelsWithTheEvent() async throws {
        try await RedisHarness.withServer { harness, server in
            let log = RoomEventLog(client: try harness.client(RedisHarness.standalone(server)), historyLength: 100)
            let subscription = log.subscription(room: "meta")
            log.client.subscribe(subscription)
            _ = try harness.waitForEvent { if case .subscriber(.subscribed(subscription, _)) = $0 { return true } else { return false } }
            _ = try harness.append(log, room: "meta", event: "{\"x\":1}", meta: "msg/node-a/17").get()
            #expect(harness.run { harness.messages.count == 1 })
            #expect(harness.messages.compactMap { RoomEvent(published: $0.payload) }
                    == [RoomEvent(seq: 1, meta: Array("msg/node-a/17".utf8), payload: Array("{\"x\":1}".utf8))])
            #expect(try harness.events(log, room: "meta", after: 0, limit: 5).map(\.meta) == [Array("msg/node-a/17".utf8)])
            guard case .failure(.tooLarge) = try harness.append(log, room: "meta", event: "e", meta: "two words") else {
                Issue.record("a meta with a space was sent"); return
            }
            guard case .failure(.tooLarge) = try harness.append(log, room: "meta", event: "e", meta: String(repeating: "m", count: 129)) else {
                Issue.record("a 129-byte meta was sent"); return
            }
        }
    }

    /// The newest events before a seq, oldest first (a replay, a page of history): bounded by
    /// `after` and `before` exclusively, and by the count.
    @Test func newestEventsPageBack() async throws {
        try await RedisHarness.withServer { harness, server in
            let log = RoomEventLog(client: try harness.client(RedisHarness.standalone(server)), historyLength: 100)
            for index in 1...10 { _ = try harness.append(log, room: "page", event: "e\(index)").get() }
            #expect(try harness.newestEvents(log, room: "page", after: nil, before: 8, limit: 3).map(\.seq) == [5, 6, 7])
            #expect(try harness.newestEvents(log, room: "page", after: 5, before: nil, limit: 100).map(\.seq) == [6, 7, 8, 9, 10])
            #expect(try harness.newestEvents(log, room: "page", after: 2, before: 5, limit: 100).map(\.seq) == [3, 4])
            #expect(try harness.newestEvents(log, room: "page", after: 9, before: 3, limit: 100).isEmpty)
            #expect(try harness.newestEvents(log, room: "none", after: nil, before: nil, limit: 10).isEmpty)
        }
    }

    /// The stream is trimmed (MAXLEN ~): at least the last N events stay, at most N plus one
    /// stream node (100 entries); what remains is the newest, consecutive.
    @Test func streamIsTrimmed() async throws {
        try await RedisHarness.withServer { harness, server in
            let log = RoomEventLog(client: try harness.client(RedisHarness.standalone(server)), historyLength: 50)
            var done = 0
            for index in 0..<1000 { log.append(room: "busy", event: Array("e\(index)".utf8)) { _ in done += 1 } }
            #expect(harness.run { done == 1000 })
            let length = try harness.reply(log.client, RedisCommand("XLEN", RoomKeys(room: "busy").events)).integer ?? 0
            #expect(length >= 50 && length <= 150)
            let kept = try harness.events(log, room: "busy", after: 0, limit: 1000)
            #expect(kept.count == Int(length))
            #expect(kept.last?.seq == 1000)
            #expect(kept.map(\.seq) == Array((1000 - Int64(length) + 1)...1000))
        }
    }

    /// Gap filling: the events after a seq, oldest first, bounded by the limit.
    @Test func rangeFillsGaps() async throws {
        try await RedisHarness.withServer { harness, server in
            let log = RoomEventLog(client: try harness.client(RedisHarness.standalone(server)), historyLength: 1000)
            for index in 1...20 { _ = try harness.append(log, room: "gaps", event: "event \(index)").get() }
            let middle = try harness.events(log, room: "gaps", after: 5, limit: 10)
            #expect(middle.map(\.seq) == Array(6...15))
            #expect(middle.first?.payload == Array("event 6".utf8))
            #expect(try harness.events(log, room: "gaps", after: 20, limit: 10).isEmpty)
            #expect(try harness.events(log, room: "other", after: 0, limit: 10).isEmpty)
            var last: Result<Int64, RoomStoreError>?
            log.lastSeq(room: "gaps") { last = $0 }
            #expect(harness.run { last != nil })
            #expect(try last?.get() == 20)
        }
    }

    /// A resend with the same dedupe key (sender and message id) stores nothing and gets the
    /// first seq back; the script still works after Redis forgot it (SCRIPT FLUSH: NOSCRIPT,
    /// then EVAL).
    @Test func dedupeAndScriptReload() async throws {
        try await RedisHarness.withServer { harness, server in
            let log = RoomEventLog(client: try harness.client(RedisHarness.standalone(server)), historyLength: 100)
            let first = try harness.append(log, room: "r", event: "hello", dedupe: "peer1:m1").get()
            _ = try harness.append(log, room: "r", event: "other").get()
            let again = try harness.append(log, room: "r", event: "hello", dedupe: "peer1:m1").get()
            #expect(first == RoomAppend(seq: 1, duplicate: false))
            #expect(again == RoomAppend(seq: 1, duplicate: true))
            #expect(try harness.reply(log.client, RedisCommand("XLEN", RoomKeys(room: "r").events)) == .integer(2))
            _ = try harness.reply(log.client, RedisCommand("SCRIPT", "FLUSH"))
            #expect(try harness.append(log, room: "r", event: "after flush").get().seq == 3)
            // An event over the limit is refused before it is sent.
            var refused: Result<RoomAppend, RoomStoreError>?
            log.append(room: "r", event: [UInt8](repeating: 65, count: RoomEventLog.maxEventBytes + 1)) { refused = $0 }
            guard case .failure(.tooLarge)? = refused else { Issue.record("not refused: \(String(describing: refused))"); return }
        }
    }

    /// A conditional setting (`setnx`, a `claim`'s owner): of 50 rooms each claimed by two
    /// connections at once, exactly one append per room stores its event and sets the field;
    /// the other stores nothing (no event, no seq) and answers the winner's value.
    @Test func conditionalSettingHasOneWinner() async throws {
        try await RedisHarness.withServer { harness, server in
            let logs = try (0..<2).map { _ in RoomEventLog(client: try harness.client(RedisHarness.standalone(server)), historyLength: 100) }
            var outcomes: [String: [Result<RoomAppend, RoomStoreError>]] = [:]
            for index in 0..<50 {
                for (which, log) in logs.enumerated() {
                    log.append(room: "r\(index)", event: Array("claim by \(which)".utf8),
                               settings: .setIfAbsent(field: "owner", value: "owner\(which)")) { outcomes["r\(index)", default: []].append($0) }
                }
            }
            #expect(harness.run { outcomes.values.reduce(0) { $0 + $1.count } == 100 })
            for index in 0..<50 {
                let room = "r\(index)"
                let answers = try (outcomes[room] ?? []).map { try $0.get() }
                let winners = answers.filter { $0.existing == nil }
                let owner = try harness.reply(logs[0].client, RedisCommand("HGET", RoomKeys(room: room).settings, "owner")).text
                #expect(winners.count == 1 && winners.first?.seq == 1, "\(room): \(answers)")
                #expect(answers.filter { $0.existing != nil }.map(\.existing) == [owner], "\(room): \(answers)")
                #expect(try harness.reply(logs[0].client, RedisCommand("XLEN", RoomKeys(room: room).events)) == .integer(1))
            }
        }
    }

    /// The counter never goes back: with the seq key lost but the stream kept, the next event
    /// continues after the stream's last entry.
    @Test func seqNeverReused() async throws {
        try await RedisHarness.withServer { harness, server in
            let log = RoomEventLog(client: try harness.client(RedisHarness.standalone(server)), historyLength: 100)
            for _ in 1...5 { _ = try harness.append(log, room: "r", event: "x").get() }
            _ = try harness.reply(log.client, RedisCommand("DEL", RoomKeys(room: "r").seq))
            #expect(try harness.append(log, room: "r", event: "y").get().seq == 6)
            #expect(try harness.append(log, room: "r", event: "z").get().seq == 7)
        }
    }

    /// Appends while Redis is down fail as unavailable (nothing acknowledged); after the
    /// restart with AOF (appendfsync always) every acknowledged event is still there.
    @Test func unavailableThenDurable() async throws {
        try await RedisHarness.withServer(.init(appendOnly: true, appendFsync: "always")) { harness, server in
            let address = RedisServerAddress(host: "127.0.0.1", port: server.port)
            let log = RoomEventLog(client: try harness.client(.standalone(address)), historyLength: 100)
            var acknowledged: [Int64] = []
            for index in 0..<50 { acknowledged.append(try harness.append(log, room: "safe", event: "e\(index)").get().seq) }
            server.kill9()
            _ = try harness.waitForEvent { if case .disconnected = $0 { return true } else { return false } }
            guard case .failure(.notStored) = try harness.append(log, room: "safe", event: "lost") else {
                Issue.record("append while down did not fail"); return
            }
            let before = harness.events.count
            try server.restart()
            _ = try harness.waitForEvent(after: before) { if case .connected = $0 { return true } else { return false } }
            let stored = try harness.events(log, room: "safe", after: 0, limit: 100)
            #expect(stored.map(\.seq) == acknowledged)
            #expect(try harness.append(log, room: "safe", event: "next").get().seq == 51)
        }
    }

    /// Encoded once around the seq: the stored and the published event carry the seq Redis
    /// assigned, spliced between the two halves, byte for byte the same everywhere.
    @Test func seqIsSplicedIntoTheEncoding() async throws {
        try await RedisHarness.withServer { harness, server in
            let log = RoomEventLog(client: try harness.client(RedisHarness.standalone(server)), historyLength: 100)
            let subscription = log.subscription(room: "json")
            log.client.subscribe(subscription)
            _ = try harness.waitForEvent { if case .subscriber(.subscribed(subscription, _)) = $0 { return true } else { return false } }
            var outcomes: [Result<RoomAppend, RoomStoreError>] = []
            for text in ["a", "b"] {
                log.append(room: "json", event: Array("{\"type\":\"msg\",\"text\":\"\(text)\",\"seq\":".utf8), afterSeq: Array("}".utf8)) {
                    outcomes.append($0)
                }
            }
            #expect(harness.run { outcomes.count == 2 && harness.messages.count == 2 })
            #expect(try outcomes.map { try $0.get().seq } == [1, 2])
            let expected = ["{\"type\":\"msg\",\"text\":\"a\",\"seq\":1}", "{\"type\":\"msg\",\"text\":\"b\",\"seq\":2}"].map { Array($0.utf8) }
            #expect(try harness.events(log, room: "json", after: 0, limit: 10).map(\.payload) == expected)
            #expect(harness.messages.compactMap { RoomEvent(published: $0.payload)?.payload } == expected)
        }
    }
}
