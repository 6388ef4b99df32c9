import ChatProtocol
import ChatServerCore
import Foundation
import SQLiteStorage
import Testing

@Suite struct SQLiteHistoryStoreTests {
    /// The database is created in WAL mode: the -wal file exists after a write.
    @Test func databaseUsesWAL() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("chat.sqlite")
        let store = try SQLiteHistoryStore(path: path)
        try store.append(
            events: [StoredEvent(room: "lobby", seq: 1, ts: 1, kind: .joined, sender: "a", text: "")], receipts: [], retainPerRoom: 10)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
    }

    /// The history kept is the newest events counted, whatever the gap in their seqs: after a
    /// restart a room goes on above its reservation (1001 after 4), and pruning by seq arithmetic
    /// (`seq <= newest - keep`) erased everything from before the restart once four new events
    /// were stored (a restarted server showed every member joining again: aServerRestartLeavesNoChurn).
    @Test func historyKeptAcrossASeqGapIsCountedNotComputed() throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteHistoryStore(path: directory.file("chat.sqlite"))
        func event(_ seq: Int64) -> StoredEvent { StoredEvent(room: "lobby", seq: seq, ts: seq, kind: .msg, sender: "a", text: "m\(seq)") }
        try store.append(events: (1...4).map(event), receipts: [], retainPerRoom: 1000)
        try store.append(events: (1001...1004).map(event), receipts: [], retainPerRoom: 1000)
        #expect(try store.events(inRoom: "lobby", after: nil, before: nil, limit: 100).map(\.seq) == [1, 2, 3, 4, 1001, 1002, 1003, 1004])
        // Beyond the bound, the oldest go, by count.
        try store.append(events: [event(1005)], receipts: [], retainPerRoom: 6)
        #expect(try store.events(inRoom: "lobby", after: nil, before: nil, limit: 100).map(\.seq) == [4, 1001, 1002, 1003, 1004, 1005])
    }

    /// After a restart on the same file, seq goes on above every seq handed out before (above the
    /// room's reservation: docs/PROTOCOL.md, "One server's room log") and a resent id is
    /// acknowledged with its first ack (seq and ts), delivered once.
    @Test func restartKeepsSeqAndIdempotency() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("chat.sqlite")
        var original: [ChatMessage] = []
        do {
            let harness = try Harness(history: try SQLiteHistoryStore(path: path))
            harness.login(1, nick: "alice")
            harness.login(2, nick: "bob")
            original = harness.send(.msg(room: "lobby", text: "survives", id: "KEEP"), from: 1).chat(to: 1)
            #expect(original.first?.seq == 3)
            harness.send(.dm(to: "bob", text: "private", id: "DM-KEEP"), from: 1)
            harness.settle(harness.state.shutdown(now: harness.now))
        }
        let harness = try Harness(history: try SQLiteHistoryStore(path: path))
        harness.advance(60_000)
        harness.login(2, nick: "bob")
        harness.login(1, nick: "alice")
        let resend = harness.send(.msg(room: "lobby", text: "survives", id: "KEEP"), from: 1)
        #expect(resend.chat(to: 1) == original)
        #expect(resend.chat(to: 2).isEmpty)
        let resentDM = harness.send(.dm(to: "bob", text: "private", id: "DM-KEEP"), from: 1)
        #expect(resentDM.chat(to: 1).map(\.type) == ["ack"])
        #expect(resentDM.chat(to: 2).isEmpty)
        // Before the restart: joined 1, 2, msg 3, left 4, 5 (shutdown); after: joined and the
        // message above the reservation made before the restart.
        let next = harness.say("new", from: 1).chat(to: 1).first?.seq ?? 0
        #expect(next > 5)
        let replay = harness.login(3, nick: "carol", since: 2).chat(to: 3).filter { $0.replay == true }
        #expect(replay.map { $0.seq ?? 0 } == [3, 4, 5, next - 2, next - 1, next])
        #expect(replay.first?.text == "survives")
    }

    /// A file that cannot be created gives an error naming the path.
    @Test func unopenablePathThrowsClearError() throws {
        let path = "/nonexistent-dir-\(UInt32.random(in: 0...UInt32.max))/chat.sqlite"
        #expect {
            _ = try SQLiteHistoryStore(path: path)
        } throws: { error in
            (error as? HistoryStoreError)?.message.contains(path) == true
        }
    }

    /// A file that is not a database gives an error naming the path instead of being overwritten.
    @Test func notADatabaseThrowsClearError() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("garbage.sqlite")
        try Data(repeating: 0x42, count: 4_096).write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try SQLiteHistoryStore(path: path)
        } throws: { error in
            let message = (error as? HistoryStoreError)?.message ?? ""
            return message.contains(path) && message.contains("not a database")
        }
    }

    /// A write failure is logged and the msg is not acknowledged: its sender is told `unavailable`
    /// with the id (not saying it was not stored), and resends it. Members saw it when its seq was
    /// handed out, before the commit (docs/PROTOCOL.md, "One server's room log": a disk error can
    /// show a message twice, never lose an acknowledged one).
    @Test func writeFailureWithholdsAck() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        harness.localStore?.rig.disk.failure.withLock { $0 = HistoryStoreError("disk full") }
        let out = harness.send(.msg(room: "lobby", text: "lost", id: "L"), from: 1)
        #expect(out.recipients == [1, 2])
        #expect(out.chat(to: 2).map(\.text) == ["lost"])
        #expect(out.chat(to: 1).map { [$0.type, $0.code, $0.id] } == [["error", "unavailable", "L"]])
        #expect(out.chat(to: 1).first?.stored == nil)
        #expect(out.logs.contains { $0.level >= .warning && $0.fields["error"]?.contains("disk full") == true })
        // Its id was forgotten: the resend is stored, under a new seq.
        harness.localStore?.rig.disk.failure.withLock { $0 = nil }
        #expect(harness.send(.msg(room: "lobby", text: "lost", id: "L"), from: 1).chat(to: 1).first?.type == "ack")
    }
}

