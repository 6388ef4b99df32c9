import ChatProtocol
@testable import ChatServerCore
import LocalStore
import Testing

/// What the local store adapter holds back or lets go (docs/PROTOCOL.md, "One server's room
/// log"): an event that changes a room's settings is its asker's answer, so it is shown only once
/// on disk, with the room's later events behind it; rooms nobody follows are forgotten beyond the
/// idle bound when the disk is memory, and a room met again never reuses a seq.
@Suite struct LocalStoreHoldTests {
    typealias Rig = LocalStoreAdapterTests.Rig

    /// Hands the worker's outcomes to the log until `done` holds for what it answered.
    static func answers(_ rig: Rig, _ log: LocalStoreAdapter, from first: [LocalStoreAnswer] = [],
                        until done: ([LocalStoreAnswer]) -> Bool) -> [LocalStoreAnswer] {
        var answers = first
        while !done(answers) { answers += rig.step(log) }
        return answers
    }

    @Test func aTopicIsShownOnceCommittedAndTheRoomsLaterEventsBehindIt() throws {
        let rig = Rig()
        let log = try rig.makeLog()
        _ = log.follow("lobby", after: 0)
        let first = Self.answers(rig, log, from: log.append(LocalStoreAdapterTests.append(1, text: "one", id: "a"))) {
            !LocalStoreAdapterTests.delivered($0).isEmpty
        }
        #expect(LocalStoreAdapterTests.delivered(first) == [1])
        // The disk stalls: a message is still shown at once, a topic (and what follows it) is not.
        rig.disk.waitForCommit()
        rig.disk.hold()
        let topic = log.append(LocalStoreAdapterTests.append(2, text: "new topic", origin: nil,
                                                               policy: .topic(room: "lobby", RoomTopic(text: "new topic", setBy: "alice", ts: 1)),
                                                               kind: .topic))
        let behind = log.append(LocalStoreAdapterTests.append(3, text: "two", id: "b"))
        #expect(LocalStoreAdapterTests.delivered(topic + behind).isEmpty)
        rig.disk.release()
        let later = Self.answers(rig, log) { LocalStoreAdapterTests.appended($0)[3] != nil }
        #expect(LocalStoreAdapterTests.delivered(later) == [2, 3])
        // The topic's event before its append's answer: the asker sees its change as stored.
        let shown = later.firstIndex { if case .delivered(let event) = $0 { event.seq == 2 } else { false } }
        let answered = later.firstIndex { if case .appended(2, _) = $0 { true } else { false } }
        #expect(shown != nil && answered != nil && shown! < answered!)
        #expect(LocalStoreAdapterTests.appended(later)[2] == .stored(seq: 2, duplicate: false))
    }

    @Test func idleRoomsBeyondTheBoundAreForgottenAndTheirSeqsNeverReused() throws {
        let disk = InMemoryRoomLogDisk()
        let rig = Rig(disk: LocalStoreAdapterTests.GatedDisk(disk))
        let log = try rig.makeLog(idleRoomLimit: 2)
        var highest: [String: Int64] = [:]
        for (index, room) in ["r1", "r2", "r3", "r4"].enumerated() {
            _ = log.follow(room, after: 0)
            let answers = Self.answers(rig, log, from: log.append(LocalStoreAdapterTests.append(UInt64(index + 1), room: room, text: room))) {
                LocalStoreAdapterTests.appended($0)[UInt64(index + 1)] != nil
            }
            highest[room] = LocalStoreAdapterTests.delivered(answers).max()
            log.unfollow(room)
        }
        rig.worker.waitUntilIdle()
        // Four rooms went idle: the two longest idle are forgotten, here and on the disk.
        #expect(log.roomCount == 2)
        #expect(try disk.events(inRoom: "r1", after: nil, before: nil, limit: 10, newest: true).isEmpty)
        #expect(try disk.events(inRoom: "r4", after: nil, before: nil, limit: 10, newest: true).count == 1)
        // r1 again: its next seq is above every seq it handed out before it was forgotten.
        _ = log.follow("r1", after: 0)
        let again = Self.answers(rig, log, from: log.append(LocalStoreAdapterTests.append(9, room: "r1", text: "again"))) {
            LocalStoreAdapterTests.appended($0)[9] != nil
        }
        let r1 = try #require(highest["r1"])
        #expect(!LocalStoreAdapterTests.delivered(again).isEmpty && LocalStoreAdapterTests.delivered(again).allSatisfy { $0 > r1 })
        #expect(LocalStoreAdapterTests.appended(again)[9] != nil)
    }
}
