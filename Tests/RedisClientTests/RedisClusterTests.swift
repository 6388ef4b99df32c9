import ClusterStore
import Foundation
import EventRuntime
import RedisClient
import TestSupport
import Testing

/// The client against a real 3-master Redis Cluster (redis-cli --cluster create).
@Suite(.serialized) struct RedisClusterTests {
    /// Rooms whose keys hash to slots served by three different masters.
    private func roomsOnEveryMaster(_ map: RedisSlotMap) -> [String] {
        var byMaster: [RedisServerAddress: String] = [:]
        for index in 0..<200 {
            let room = "room\(index)"
            if let owner = map.owner(of: RedisKeySlot.slot(of: RoomKeys(room: room).seq)), byMaster[owner] == nil { byMaster[owner] = room }
        }
        return Array(byMaster.values)
    }

    /// The slot map from CLUSTER SLOTS covers every slot with three masters; our CRC16 slots
    /// agree with the server's CLUSTER KEYSLOT; a room's keys share a slot, and rooms spread
    /// over the masters; the room script runs on each room's master.
    @Test func slotsAndRoomsAcrossMasters() async throws {
        try await RedisHarness.withCluster { harness, cluster in
            let client = try harness.client(RedisHarness.cluster(cluster))
            let map = try #require(client.currentSlotMap)
            #expect(map.isComplete)
            #expect(Set(map.servingMasters.map(\.port)) == Set(cluster.ports))
            for key in ["foo", "{room:lobby}:seq", "{room:lobby}:events", "{room:lobby}:live", "a{b}c", "x{}y", "\u{00e9}t\u{00e9}"] {
                let server = try harness.reply(client, RedisCommand("CLUSTER", "KEYSLOT", key))
                #expect(server == .integer(Int64(RedisKeySlot.slot(of: key))), "\(key)")
            }
            let keys = RoomKeys(room: "lobby")
            #expect(Set([keys.seq, keys.events, keys.channel, keys.sent("p:1")].map { RedisKeySlot.slot(of: $0) }).count == 1)
            let rooms = roomsOnEveryMaster(map)
            #expect(rooms.count == 3)
            let log = RoomEventLog(client: client, historyLength: 100)
            #expect(log.sharded)
            for room in rooms {
                for expected in 1...3 { #expect(try harness.append(log, room: room, event: "in \(room)").get().seq == Int64(expected)) }
                #expect(try harness.events(log, room: room, after: 1, limit: 10).map(\.seq) == [2, 3])
            }
            // Each room's keys are on its own master and nowhere else.
            for room in rooms {
                let owner = try #require(try cluster.owner(of: RedisKeySlot.slot(of: RoomKeys(room: room).seq)))
                for port in cluster.ports {
                    let exists = try RedisServerProcess.run(port: port, ["EXISTS", RoomKeys(room: room).events])
                    if port == owner { #expect(exists == "1") } else { #expect(exists.hasPrefix("MOVED")) }
                }
            }
            // Leases live in their own slots, the holds record in the node's: both routed right.
            let leases = Leases(client: client)
            let nicks = (0..<12).map { "nick\($0)" }
            #expect(Set(nicks.compactMap { map.owner(of: RedisKeySlot.slot(of: Leases.nick($0))) }).count > 1)
            var taken = 0
            for nick in nicks { leases.take(Leases.nick(nick), holder: "n1/\(nick)", node: "n1") { if case .success(.taken) = $0 { taken += 1 } } }
            #expect(harness.run { taken == nicks.count })
            var freed: [String]?
            leases.releaseAll(node: "n1") { freed = try? $0.get() }
            #expect(harness.run { freed != nil })
            #expect(freed?.count == nicks.count)
            var joined: NodeDirectory.Heartbeat?
            NodeDirectory(client: client, node: "n1").join { joined = try? $0.get() }
            #expect(harness.run { joined != nil })
            #expect(joined != .reaped)
        }
    }

    /// SSUBSCRIBE goes to the master of each channel's slot: subscribed to rooms on all three
    /// masters, one client receives each room's events that another client's script SPUBLISHed.
    @Test func shardedPubSubAcrossShards() async throws {
        try await RedisHarness.withCluster { harness, cluster in
            let subscriber = try harness.client(RedisHarness.cluster(cluster))
            let publisher = RoomEventLog(client: try harness.client(RedisHarness.cluster(cluster)), historyLength: 100)
            let rooms = roomsOnEveryMaster(try #require(subscriber.currentSlotMap))
            let reader = RoomEventLog(client: subscriber, historyLength: 100)
            for room in rooms { subscriber.subscribe(reader.subscription(room: room)) }
            #expect(harness.run {
                harness.events.filter { if case .subscriber(.subscribed(_, restored: false)) = $0.event { return true } else { return false } }.count == 3
            })
            for room in rooms { _ = try harness.append(publisher, room: room, event: "hello \(room)").get() }
            #expect(harness.run { harness.messages.count == 3 })
            let received = Set(harness.messages.map { String(decoding: $0.payload, as: UTF8.self) })
            #expect(received == Set(rooms.map { "1 - hello \($0)" }))
        }
    }

    /// A slot moved to another master after the client learned the map: the command sent to
    /// the old owner is answered MOVED, followed to the new one, and the map is updated; a
    /// subscription on that slot moves with it and comes back with the gap flag.
    @Test func movedAfterSlotMigration() async throws {
        try await RedisHarness.withCluster { harness, cluster in
            let client = try harness.client(RedisHarness.cluster(cluster))
            let log = RoomEventLog(client: client, historyLength: 100)
            let room = "migrating"
            let slot = RedisKeySlot.slot(of: RoomKeys(room: room).seq)
            let oldOwner = try #require(client.currentSlotMap?.owner(of: slot))
            let subscription = try harness.follow(room, of: log)
            let newPort = try #require(cluster.ports.first { $0 != oldOwner.port })
            try cluster.moveEmptySlot(slot, to: newPort)
            // The client's map is stale now: the append goes to the old owner first.
            #expect(client.currentSlotMap?.owner(of: slot) == oldOwner)
            let append = try harness.append(log, room: room, event: "after the move").get()
            #expect(append.seq == 1)
            #expect(client.currentSlotMap?.owner(of: slot)?.port == newPort)
            #expect(try RedisServerProcess.run(port: newPort, ["EXISTS", RoomKeys(room: room).events]) == "1")
            // The shard subscription follows the slot: ended on the old master, restored on the new.
            _ = try harness.waitForEvent { if case .subscriber(.subscribed(subscription, restored: true)) = $0 { return true } else { return false } }
            _ = try harness.append(log, room: room, event: "heard")
            #expect(harness.run { harness.messages.contains { $0.payload == Array("2 - heard".utf8) } })
        }
    }

    /// During a migration (MIGRATING on the source, IMPORTING on the target) a key the source
    /// no longer has is answered ASK: the client sends ASKING and the command to the target,
    /// without changing its map.
    @Test func askDuringMigration() async throws {
        try await RedisHarness.withCluster { harness, cluster in
            let client = try harness.client(RedisHarness.cluster(cluster))
            let key = "{asked}:key"
            let slot = RedisKeySlot.slot(of: key)
            let source = try #require(client.currentSlotMap?.owner(of: slot))
            let targetPort = try #require(cluster.ports.first { $0 != source.port })
            let sourceID = try cluster.nodeID(port: source.port)
            let targetID = try cluster.nodeID(port: targetPort)
            #expect(try RedisServerProcess.run(port: targetPort, ["CLUSTER", "SETSLOT", String(slot), "IMPORTING", sourceID]) == "OK")
            #expect(try RedisServerProcess.run(port: source.port, ["CLUSTER", "SETSLOT", String(slot), "MIGRATING", targetID]) == "OK")
            #expect(try harness.reply(client, RedisCommand("SET", key, "there"), key: key) == .status("OK"))
            // redis-cli -c follows MOVED (target to source) and ASK (source back to the target).
            #expect(try RedisServerProcess.run(port: targetPort, ["-c", "GET", key]) == "there")
            #expect(client.currentSlotMap?.owner(of: slot) == source)
        }
    }

    /// One master of three killed (no replicas): its rooms answer unavailable, the rooms of the
    /// other shards go on; restarted on its folder (AOF, appendfsync always) it serves its rooms
    /// again and their seqs continue where they were.
    @Test func shardDownAffectsOnlyItsRooms() async throws {
        try await RedisHarness.withCluster(.init(appendOnly: true, appendFsync: "always")) { harness, cluster in
            let client = try harness.client(RedisHarness.cluster(cluster))
            let log = RoomEventLog(client: client, historyLength: 100)
            let map = try #require(client.currentSlotMap)
            let rooms = roomsOnEveryMaster(map)
            for room in rooms { _ = try harness.append(log, room: room, event: "before").get() }
            let victimAddress = try #require(map.owner(of: RedisKeySlot.slot(of: RoomKeys(room: rooms[0]).seq)))
            let victim = try #require(cluster.nodes.first { $0.port == victimAddress.port })
            victim.kill9()
            _ = try harness.waitForEvent { if case .disconnected(victimAddress, _) = $0 { return true } else { return false } }
            guard case .failure(.notStored) = try harness.append(log, room: rooms[0], event: "while down") else {
                Issue.record("an append to the dead shard did not fail as not stored"); return
            }
            for room in rooms.dropFirst() { #expect(try harness.append(log, room: room, event: "others go on").get().seq == 2) }
            try victim.restart()
            #expect(harness.appendWhenAvailable(log, room: rooms[0], event: "back")?.seq == 2)
            #expect(try harness.events(log, room: rooms[0], after: 0, limit: 10).map(\.payload) == [Array("before".utf8), Array("back".utf8)])
        }
    }
}
