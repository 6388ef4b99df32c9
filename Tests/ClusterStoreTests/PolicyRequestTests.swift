import ChatServerCore
@testable import ClusterStore
import EventRuntime
import RedisClient
import Testing

/// Policy writes (``PolicyWrite``), the appends' answers (``AppendAnswer``), statuses
/// (``MemberStatusPublication``) and publications.
@Suite struct PolicyRequestTests {
    static let ban = Ban(label: "Mallory", reason: "spam", by: "op", ts: 5)

    @Test func aServerBanIsWrittenThenAnnounced() {
        var write = ScriptedRequest(PolicyWrite(.banAdded(room: nil, Self.ban), node: "n1", sharded: false))
        #expect(write.labels == ["HSET {server}:bans"] && write.waiting[0].durable)
        let arguments = write.waiting[0].command.arguments.map { String(decoding: $0, as: UTF8.self) }
        #expect(arguments[2] == "mallory")
        write.reply(.integer(1))
        #expect(write.outcome == .written)
        #expect(write.then == [.publish("bans n1", on: ClusterKeys.serverChannel, sharded: false)])

        var lift = ScriptedRequest(PolicyWrite(.banRemoved(room: nil, label: "MALLORY"), node: "n1", sharded: true))
        #expect(lift.labels == ["HDEL {server}:bans"])
        lift.reply(.integer(1))
        #expect(lift.then.map { NodeHarness.label($0.command) } == ["SPUBLISH {server}:changes"])

        #expect(PolicyWrite.isOthersBansChange(Array("bans n2".utf8), thisNode: "n1"))
        #expect(!PolicyWrite.isOthersBansChange(Array("bans n1".utf8), thisNode: "n1"))
    }

    /// A room's invite goes to the room's settings, unannounced (its events carry it); a claim's
    /// conditional owner is no write of its own (its append sets it) and sends nothing.
    @Test func aRoomsInviteIsWrittenQuietly() {
        var write = ScriptedRequest(PolicyWrite(.inviteAdded(room: "lobby", .account("bob")), node: "n1", sharded: false))
        #expect(write.labels == ["HSET \(RoomKeys(room: "lobby").settings)"])
        let arguments = write.waiting[0].command.arguments.map { String(decoding: $0, as: UTF8.self) }
        #expect(arguments[2...] == ["invite:a:bob", "1"])
        write.reply(.integer(1))
        #expect(write.outcome == .written && write.then.isEmpty)

        let owner = ScriptedRequest(PolicyWrite(.owner(room: "lobby", account: "alice"), node: "n1", sharded: false))
        #expect(owner.outcome == .notKept && owner.sentLabels.isEmpty)
    }

    @Test func aPolicyWriteIsRetriedThenLost() {
        var write = ScriptedRequest(PolicyWrite(.banAdded(room: nil, Self.ban), node: "n1", sharded: false))
        for _ in 0..<WriteBehindRetries.limit {
            write.reply(.error("READONLY You can't write against a read only replica."))
            #expect(write.delay == ReadPatience.retryDelay)
            write.wake()
        }
        write.fail(.notReplicated("0 of 1"))
        #expect(write.outcome == .lost && write.then.isEmpty)
        #expect(write.sentLabels.count == WriteBehindRetries.limit + 1)
    }

    @Test func appendAnswers() {
        #expect(AppendAnswer(.success(RoomAppend(seq: 4, duplicate: false))) == AppendAnswer(.stored(seq: 4, duplicate: false), figure: "stored"))
        #expect(AppendAnswer(.success(RoomAppend(seq: 4, duplicate: true))) == AppendAnswer(.stored(seq: 4, duplicate: true), figure: "duplicate"))
        #expect(AppendAnswer(.success(RoomAppend(seq: 0, duplicate: false, existing: "alice")))
                == AppendAnswer(.settingTaken("alice"), figure: "refused"))
        #expect(AppendAnswer(.success(RoomAppend(seq: 0, duplicate: false, storeLost: true)))
                == AppendAnswer(.refused("redis lost data this node had seen"), figure: "lost", storeLost: true))
        // Known not stored: the client may send it again as new; otherwise it may be stored.
        #expect(AppendAnswer(.failure(.notStored("LOADING"))) == AppendAnswer(.refused("\(RoomStoreError.notStored("LOADING"))"), figure: "failed"))
        #expect(AppendAnswer(.failure(.unavailable("reset"))) == AppendAnswer(.failed("\(RoomStoreError.unavailable("reset"))"), figure: "failed"))
    }

    @Test func aStatusIsPublishedAndWrittenWhereTheMemberIs() {
        let store = InMemoryRedis()
        let format = MemberRecordFormat(node: "n1")
        let member = MemberRecord(nick: "Alice", account: "alice", status: .away)
        store.hashes[RoomKeys(room: "lobby").members] = ["alice": "old"]
        let commands = MemberStatusPublication.commands(member, rooms: ["lobby", "empty"], format: format, sharded: false)
        #expect(commands.map { NodeHarness.label($0.command) } == ["PUBLISH \(ClusterKeys.presenceChannel)", "EVAL updateRecord \(RoomKeys(room: "lobby").members)",
                                                                 "EVAL updateRecord \(RoomKeys(room: "empty").members)"])
        #expect(commands[1].key == RoomKeys(room: "lobby").members)
        #expect(MemberStatusPublication.commands(member, rooms: [], format: format, sharded: true).map { NodeHarness.label($0.command) }
                == ["SPUBLISH \(ClusterKeys.presenceChannel)"])
        _ = store.execute(commands[0].command)
        #expect(store.published == ["\(ClusterKeys.presenceChannel) \(format.text(member))"])
    }

    @Test func typingIndicatorsNameTheirNode() {
        let publication = TypingIndicators.publication(Array(#"{"type":"typing"}"#.utf8), room: "lobby", node: "n1", sharded: true)
        #expect(publication.command.arguments.map { String(decoding: $0, as: UTF8.self) }
                == ["SPUBLISH", RoomKeys(room: "lobby").typing, #"n1 {"type":"typing"}"#])
        #expect(publication.key == RoomKeys(room: "lobby").typing)
        let message = publication.command.arguments[2]
        #expect(TypingIndicators.received(message, thisNode: "n2") == Array(#"{"type":"typing"}"#.utf8))
        #expect(TypingIndicators.received(message, thisNode: "n1") == nil)
        #expect(TypingIndicators.received(Array("garbage".utf8), thisNode: "n2") == nil)
    }
}
