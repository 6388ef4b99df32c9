import ChatServerCore
@testable import ClusterStore
import EventRuntime
import RedisClient
import Testing

/// The core's reads of a room (``RoomEventsRead``, ``RoomStateRead``) against a scripted Redis:
/// the commands, the events decoded in seq order, and the retries while Redis is unavailable.
@Suite struct RoomReadRequestTests {
    /// A stream entry as XRANGE answers it.
    static func entry(_ seq: Int64, meta: String, _ payload: String) -> RedisReply {
        .array([.text("\(seq)-0"), .texts(["e", payload, "m", meta])])
    }

    @Test func aPageOfHistoryIsTheNewestInSeqOrder() {
        let read = RoomEventRead(token: 9, room: "lobby", after: 2, before: 10, limit: 2, newest: true)
        var request = ScriptedRequest(RoomEventsRead(read, node: "n1", startedAt: .now()))
        let arguments = request.waiting[0].command.arguments.map { String(decoding: $0, as: UTF8.self) }
        #expect(arguments == ["XREVRANGE", RoomKeys(room: "lobby").events, "(10-0", "(2-0", "COUNT", "2"])
        #expect(request.waiting[0].key == RoomKeys(room: "lobby").events)
        request.reply(.array([Self.entry(8, meta: "msg/n2/4//77", "b"), Self.entry(7, meta: "msg/n1/5//12", "a"),
                              Self.entry(6, meta: "not a meta", "x")]))
        guard case .read(let events)? = request.outcome else { Issue.record("not read"); return }
        #expect(events.map(\.seq) == [7, 8])
        // This node's own event names its connection and append; another node's does not.
        #expect(events[0].origin == 5 && events[0].append == 12 && events[1].origin == nil)
        #expect(events.map(\.payload) == [Array("a".utf8), Array("b".utf8)])
    }

    @Test func eventsAfterASeqAreOldestFirst() {
        let read = RoomEventRead(token: 9, room: "lobby", after: nil, before: nil, limit: 5_000, newest: false)
        var request = ScriptedRequest(RoomEventsRead(read, node: "n1", startedAt: .now()))
        let arguments = request.waiting[0].command.arguments.map { String(decoding: $0, as: UTF8.self) }
        #expect(arguments == ["XRANGE", RoomKeys(room: "lobby").events, "1-0", "+", "COUNT", String(RoomEventLog.maxReadCount)])
        request.reply(.array([Self.entry(1, meta: "joined/n2/4", "a"), Self.entry(2, meta: "msg/n2/4", "b")]))
        guard case .read(let events)? = request.outcome else { Issue.record("not read"); return }
        #expect(events.map(\.seq) == [1, 2] && events.map(\.kind) == [.joined, .msg])
    }

    @Test func aReadRetriesWhileRedisIsUnavailableThenFails() {
        let read = RoomEventRead(token: 9, room: "lobby", after: nil, before: nil, limit: 10, newest: true)
        var request = ScriptedRequest(RoomEventsRead(read, node: "n1", startedAt: MonotonicTime(nanoseconds: 1_000_000_000_000)))
        request.reply(.error("LOADING Redis is loading"))
        #expect(request.delay == ReadPatience.retryDelay)
        request.wake()
        request.fail(.connectionLost("reset"), after: .seconds(5))
        #expect(request.outcome == .failed(.unavailable(RedisFailure.connectionLost("reset").description)))

        var malformed = ScriptedRequest(RoomEventsRead(read, node: "n1", startedAt: .now()))
        malformed.reply(.array([.array([.text("x")])]))
        guard case .failed(.rejected)? = malformed.outcome else { Issue.record("not failed"); return }
    }

    @Test func aRoomsStateIsItsSeqMembersAndSettings() {
        let format = MemberRecordFormat(node: "n1")
        let alice = MemberRecord(nick: "Alice", account: "alice", status: .online)
        var request = ScriptedRequest(RoomStateRead(room: "lobby", format: format, startedAt: .now()))
        #expect(request.labels == ["EVAL roomState \(RoomKeys(room: "lobby").seq)"])
        #expect(request.waiting[0].key == RoomKeys(room: "lobby").seq)
        request.reply(.array([.text("41"), .texts(["alice", format.text(alice)]), .texts(["topic", "5 alice hello"])]))
        guard case .state(let seq, let members, let settings)? = request.outcome else { Issue.record("no state"); return }
        #expect(seq == 41 && members.map(\.nick) == ["Alice"])
        #expect(settings == PolicyFormat.settings(from: ["topic": Array("5 alice hello".utf8)]))

        var large = ScriptedRequest(RoomStateRead(room: "lobby", format: format, startedAt: .now()))
        large.reply(.error("TOOLARGE room members"))
        #expect(large.outcome == .failed(.tooLarge("TOOLARGE room members")))

        var busy = ScriptedRequest(RoomStateRead(room: "lobby", format: format, startedAt: .now()))
        busy.reply(.error("TRYAGAIN"))
        #expect(busy.delay == ReadPatience.retryDelay)
        busy.wake()
        busy.reply(.array([.text("0"), .array([]), .array([])]))
        #expect(busy.outcome == .state(seq: 0, members: [], settings: RoomSettings()))
    }
}
