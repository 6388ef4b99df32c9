import ChatServerCore
@testable import ClusterStore
import EventRuntime
import RedisClient
import Testing

/// The account requests (``AccountsLoad``, ``AccountWriteRequest``, ``LoginAttemptReserve``,
/// ``AccountChanges``) against a scripted Redis: the commands, the replies read, error replies,
/// lost connections and the retries of a read.
@Suite struct AccountRequestTests {
    /// `HGETALL` of an account as Redis answers it.
    static func account(_ name: String, hash: String? = nil, created: Int64 = 7) -> RedisReply {
        .texts(["name", name, "created", String(created)] + (hash.map { ["hash", $0] } ?? []))
    }

    @Test func oneScriptReadsEveryNameOnOneRedis() {
        var load = ScriptedRequest(AccountsLoad(names: ["Alice", "alice2", "Bob"], sharded: false, startedAt: .now()))
        #expect(load.labels == ["EVAL readAccounts {account:alice}"])
        let keys = load.waiting[0].command.arguments.dropFirst(3).map { String(decoding: $0, as: UTF8.self) }
        #expect(keys == ["{account:alice}", "{account:alice}:certs", "{account:alice2}", "{account:alice2}:certs",
                         "{account:bob}", "{account:bob}:certs"])
        #expect(load.waiting[0].durable == false)
        load.reply(.array([Self.account("Alice", hash: "h1"), .texts(["fp2", "fp1"]), .array([]), .array([]), Self.account("Bob"), .array([])]))
        let loaded = load.outcome.flatMap { $0 }
        #expect(loaded?["Alice"] == .some(LoadedAccount(account: StoredAccount(name: "Alice", passwordHash: "h1", created: 7),
                                                      certificates: ["fp1", "fp2"])))
        // A name that is no account is known to be none, not unknown.
        #expect(loaded?["alice2"] == .some(nil))
        #expect(loaded?["Bob"] == .some(LoadedAccount(account: StoredAccount(name: "Bob", passwordHash: nil, created: 7), certificates: [])))
    }

    /// On a Redis Cluster each slot's accounts are read by a script of their own, all at once.
    @Test func aRedisClusterReadsOneScriptPerSlot() {
        let names = ["alice", "bob", "carol", "dave"]
        var load = ScriptedRequest(AccountsLoad(names: names, sharded: true, startedAt: .now()))
        let slots = Set(names.map { RedisKeySlot.slot(of: ClusterKeys.account($0)) })
        #expect(load.waiting.count == slots.count)
        for command in load.waiting {
            let keys = command.command.arguments.dropFirst(3).map { String(decoding: $0, as: UTF8.self) }
            #expect(Set(keys.map { RedisKeySlot.slot(of: $0) }).count == 1)
            #expect(command.key == keys[0])
        }
        let replies = load.waiting.map { command -> RedisReply in
            let keys = command.command.arguments.dropFirst(3).map { String(decoding: $0, as: UTF8.self) }
            return .array(stride(from: 0, to: keys.count, by: 2).flatMap { index -> [RedisReply] in
                let name = String(keys[index].dropFirst("{account:".count).dropLast())
                return [Self.account(name), .array([])]
            })
        }
        load.answer(replies.map { .success($0) }, after: .milliseconds(1))
        #expect(load.outcome.flatMap { $0 }?.keys.sorted() == names)
    }

    @Test func noNamesNeedNoRead() {
        let load = ScriptedRequest(AccountsLoad(names: [], sharded: true, startedAt: .now()))
        #expect(load.labels.isEmpty)
        #expect(load.outcome == .some([:]))
    }

    /// "Not now" (a Redis loading its data, a lost connection) is retried 200 ms apart for 5 s;
    /// then, or at once for an error that is not "not now", the core hears the read failed.
    @Test func aReadIsRetriedWhileRedisIsUnavailable() {
        var load = ScriptedRequest(AccountsLoad(names: ["alice"], sharded: false, startedAt: MonotonicTime(nanoseconds: 1_000_000_000_000)))
        load.reply(.error("LOADING Redis is loading the dataset in memory"))
        #expect(load.delay == ReadPatience.retryDelay)
        load.wake()
        #expect(load.labels == ["EVAL readAccounts {account:alice}"])
        load.fail(.connectionLost("reset"))
        load.wake()
        load.reply(.array([Self.account("alice"), .array([])]))
        #expect(load.outcome.flatMap { $0 }?["alice"] != nil)

        var late = ScriptedRequest(AccountsLoad(names: ["alice"], sharded: false, startedAt: MonotonicTime(nanoseconds: 1_000_000_000_000)))
        late.fail(.unavailable("timed out"), after: .seconds(5))
        #expect(late.delay == nil)
        #expect(late.outcome == .some(nil))

        var refused = ScriptedRequest(AccountsLoad(names: ["alice"], sharded: false, startedAt: .now()))
        refused.reply(.error("ERR wrong number of arguments"))
        #expect(refused.outcome == .some(nil))
    }

    /// One slot's failure fails the whole read (the core reads again rather than take half).
    @Test func oneFailedSlotFailsTheRead() {
        let names = ["alice", "bob", "carol", "dave"]
        var load = ScriptedRequest(AccountsLoad(names: names, sharded: true, startedAt: .now()))
        #expect(load.waiting.count > 1)
        var results = load.waiting.map { _ in Result<RedisReply, RoomStoreError>.success(.array([])) }
        results[results.count - 1] = .failure(.rejected("ERR no such script"))
        load.answer(results, after: .milliseconds(1))
        #expect(load.outcome == .some(nil))
    }

    @Test func aRegistrationIsWrittenDurablyAndAnnounced() {
        let write = AccountWrite.create(StoredAccount(name: "Alice", passwordHash: "h", created: 9), certificate: "fp")
        var create = ScriptedRequest(AccountWriteRequest(write, node: "n1", sharded: false))
        #expect(create.labels == ["EVAL createAccount {account:alice}"])
        #expect(create.waiting[0].durable)
        create.reply(.integer(1))
        #expect(create.outcome == .written)
        #expect(create.then == [.publish("n1 alice", on: ClusterKeys.accountChangesChannel, sharded: false)])

        var taken = ScriptedRequest(AccountWriteRequest(write, node: "n1", sharded: false))
        taken.reply(.integer(0))
        #expect(taken.outcome == .exists)
        #expect(taken.then.isEmpty)

        var lost = ScriptedRequest(AccountWriteRequest(.setPasswordHash(account: "Alice", hash: nil), node: "n1", sharded: true))
        #expect(lost.labels == ["HDEL {account:alice}"])
        lost.fail(.notReplicated("0 of 1 replicas"))
        #expect(lost.outcome == .failed("\(RoomStoreError.unavailable(RedisFailure.notReplicated("0 of 1 replicas").description))"))
        #expect(lost.then.isEmpty)

        var bind = ScriptedRequest(AccountWriteRequest(.bind(account: "Alice", certificate: "fp"), node: "n2", sharded: true))
        #expect(bind.labels == ["SADD {account:alice}:certs"])
        #expect(bind.waiting[0].key == "{account:alice}")
        bind.reply(.integer(1))
        #expect(bind.then.map { NodeHarness.label($0.command) } == ["SPUBLISH {accounts}:changes"])
    }

    @Test func accountChangesAreOtherNodes() {
        #expect(AccountChanges.changed(Array("n2 alice".utf8), thisNode: "n1") == "alice")
        #expect(AccountChanges.changed(Array("n1 alice".utf8), thisNode: "n1") == nil)
        #expect(AccountChanges.changed(Array("garbage".utf8), thisNode: "n1") == nil)
    }

    /// A password attempt is counted before its hash runs and fails closed.
    @Test func aPasswordAttemptIsReservedOrRefused() {
        let attempt = LoginAttempt(ticket: 3, account: "alice", address: "192.0.2.1")
        var reserve = ScriptedRequest(LoginAttemptReserve(attempt, limit: 5, windowMilliseconds: 60_000, node: "n1"))
        #expect(reserve.labels == ["EVAL reserveAttempt {accounts}:attempts:account:alice"])
        let arguments = reserve.waiting[0].command.arguments.map { String(decoding: $0, as: UTF8.self) }
        #expect(arguments[2] == "2" && arguments[4] == "{accounts}:attempts:address:192.0.2.1")
        #expect(arguments[5...6] == ["60000", "5"] && arguments[7].hasPrefix("n1:") && arguments[7].hasSuffix(":3"))
        reserve.reply(.integer(1))
        #expect(reserve.outcome == .reserved)

        var locked = ScriptedRequest(LoginAttemptReserve(attempt, limit: 5, windowMilliseconds: 60_000, node: "n1"))
        locked.reply(.integer(0))
        #expect(locked.outcome == .locked)

        var unreachable = ScriptedRequest(LoginAttemptReserve(attempt, limit: 5, windowMilliseconds: 60_000, node: "n1"))
        unreachable.fail(.unavailable("not connected"))
        #expect(unreachable.outcome == .unavailable)

        var erred = ScriptedRequest(LoginAttemptReserve(attempt, limit: 5, windowMilliseconds: 60_000, node: "n1"))
        erred.reply(.error("BUSY Redis is busy running a script"))
        #expect(erred.outcome == .unavailable)

        // Nothing to count (no account, an exempt address): reserved without asking.
        let exempt = LoginAttempt(ticket: 4, account: nil, address: "")
        let free = ScriptedRequest(LoginAttemptReserve(exempt, limit: 5, windowMilliseconds: 60_000, node: "n1"))
        #expect(free.labels.isEmpty && free.outcome == .reserved)
        #expect(LoginAttemptReserve.release(exempt, node: "n1") == nil)
        let release = LoginAttemptReserve.release(attempt, node: "n1")
        #expect(release.map { NodeHarness.label($0.command) } == "EVAL releaseAttempt {accounts}:attempts:account:alice")
        #expect(release?.command.arguments.last == reserve.request.command?.command.arguments.last)
    }
}
