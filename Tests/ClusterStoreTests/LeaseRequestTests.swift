import ChatServerCore
@testable import ClusterStore
import EventRuntime
import RedisClient
import Testing

/// The identity requests (``HelloLeaseClaim``, ``NickClaim``, ``NickLookup``, ``DeviceLookup``,
/// the direct messages' receipts) against an in-memory Redis (two nodes' devices meeting) and a
/// scripted one (error replies, lost connections).
@Suite struct LeaseRequestTests {
    let n1 = LeaseFormat(node: "n1")
    let n2 = LeaseFormat(node: "n2")

    /// A Redis Cluster's hello, one slot at a time: the device's lease and its hold, the first
    /// free nick and its hold, and the device's lease completed.
    @Test func aHelloTakesItsDeviceAndTheFirstFreeNick() {
        let store = InMemoryRedis()
        store.strings["{nick:alice}"] = "n2/other-device"
        let claim = HelloLeaseClaim(digest: "d1", client: 17, account: nil, candidates: ["Alice", "Alice2"], address: "192.0.2.1",
                                    format: n1, sharded: true)
        let outcome = store.run(claim)
        #expect(outcome == .answered(HelloClaim(deviceTaken: true, previous: nil, nick: "Alice2")))
        #expect(store.executed == ["EVAL takeOverDevice {peer:d1}", "SADD {node:n1}:holds", "EVAL take {nick:alice}", "EVAL take {nick:alice2}",
                                   "SADD {node:n1}:holds", "SET {peer:d1}"])
        #expect(store.strings["{peer:d1}"] == "n1/17/Alice2/-/192.0.2.1")
        #expect(store.strings["{nick:alice2}"] == "n1/d1")
        #expect(store.sets["{node:n1}:holds"] == ["{peer:d1}", "{nick:alice2}"])
    }

    /// The same device through another node keeps the nick it had there, ahead of the candidates.
    @Test func aDeviceMovingToAnotherNodeKeepsItsNick() {
        let store = InMemoryRedis()
        store.strings["{peer:d1}"] = "n2/5/Zed/-/192.0.2.1"
        store.strings["{nick:zed}"] = "n2/d1"
        let claim = HelloLeaseClaim(digest: "d1", client: 17, account: nil, candidates: ["Alice"], address: "192.0.2.1", format: n1, sharded: true)
        let outcome = store.run(claim)
        let previous = n1.peerHolder("n2/5/Zed/-/192.0.2.1")
        #expect(previous?.isThisNode == false)
        #expect(outcome == .answered(HelloClaim(deviceTaken: true, previous: previous, nick: "Zed")))
        #expect(store.strings["{nick:zed}"] == "n1/d1")
        #expect(store.strings["{nick:alice}"] == nil)
    }

    /// A session logged in to an account is taken over only by a connection that proved it.
    @Test func aLoggedInDeviceIsNotTakenOver() {
        let store = InMemoryRedis()
        store.strings["{peer:d1}"] = "n2/5/Alice/alice/192.0.2.1"
        let claim = HelloLeaseClaim(digest: "d1", client: 17, account: nil, candidates: ["Alice"], address: "192.0.2.1", format: n1, sharded: true)
        #expect(store.run(claim) == .answered(HelloClaim(deviceTaken: false, previous: n1.peerHolder("n2/5/Alice/alice/192.0.2.1"), nick: nil)))
        #expect(store.executed == ["EVAL takeOverDevice {peer:d1}"])
        let proven = HelloLeaseClaim(digest: "d1", client: 17, account: "alice", candidates: ["Alice"], address: "192.0.2.1", format: n1, sharded: true)
        guard case .answered(let claimed)? = store.run(proven) else { Issue.record("not answered"); return }
        #expect(claimed.deviceTaken)
    }

    /// On one Redis the hello is one script; its answer and its failures.
    @Test func aHelloOnOneRedisIsOneScript() {
        var claim = ScriptedRequest(HelloLeaseClaim(digest: "d1", client: 17, account: "alice", candidates: ["Alice", "Alice2"],
                                                    address: "192.0.2.1", format: n1, sharded: false))
        #expect(claim.labels == ["EVAL claimHello {peer:d1}"] && claim.waiting[0].durable)
        let arguments = claim.waiting[0].command.arguments.dropFirst(2).map { String(decoding: $0, as: UTF8.self) }
        #expect(arguments == ["4", "{peer:d1}", "{node:n1}:holds", "{nick:alice}", "{nick:alice2}", "n1", "17", "d1", "alice", "192.0.2.1",
                              "Alice", "Alice2"])
        claim.reply(.array([.integer(1), .text("n2/5/Alice/alice/192.0.2.9"), .text("Alice")]))
        #expect(claim.outcome == .answered(HelloClaim(deviceTaken: true, previous: n1.peerHolder("n2/5/Alice/alice/192.0.2.9"), nick: "Alice")))
        #expect(claim.then.isEmpty)

        var held = ScriptedRequest(HelloLeaseClaim(digest: "d1", client: 17, account: nil, candidates: ["Alice"], address: "", format: n1,
                                                   sharded: false))
        held.reply(.array([.integer(1), .text(""), .text("")]))
        #expect(held.outcome == .answered(HelloClaim(deviceTaken: true, previous: nil, nick: nil)))

        var strange = ScriptedRequest(HelloLeaseClaim(digest: "d1", client: 17, account: nil, candidates: [], address: "", format: n1, sharded: false))
        strange.reply(.integer(1))
        #expect(strange.outcome == .failed("\(RoomStoreError.rejected("hello claim answered \(RedisReply.integer(1))"))"))

        var lost = ScriptedRequest(HelloLeaseClaim(digest: "d1", client: 17, account: nil, candidates: [], address: "", format: n1, sharded: false))
        lost.fail(.connectionLost("reset"))
        #expect(lost.outcome == .failed("\(RoomStoreError.unavailable(RedisFailure.connectionLost("reset").description))"))
    }

    /// Each step of a Redis Cluster's hello can fail: the claim fails with it, nothing more is sent.
    @Test func aFailedStepFailsTheHello() {
        let sharded = HelloLeaseClaim(digest: "d1", client: 17, account: nil, candidates: ["Alice"], address: "", format: n1, sharded: true)
        var atDevice = ScriptedRequest(sharded)
        atDevice.reply(.error("MOVED 1234 10.0.0.2:6379"))
        guard case .failed? = atDevice.outcome else { Issue.record("not failed"); return }

        var atHold = ScriptedRequest(sharded)
        atHold.reply(.array([.integer(1), .text("")]))
        #expect(atHold.labels == ["SADD {node:n1}:holds"] && atHold.waiting[0].durable)
        atHold.fail(.notReplicated("0 of 1"))
        guard case .failed? = atHold.outcome else { Issue.record("not failed"); return }

        var atNick = ScriptedRequest(sharded)
        atNick.reply(.array([.integer(1), .text("")]))
        atNick.reply(.integer(1))
        #expect(atNick.labels == ["EVAL take {nick:alice}"])
        atNick.reply(.array([.integer(1), .text("n1/d1")]))
        #expect(atNick.labels == ["SADD {node:n1}:holds"])
        atNick.fail(.unavailable("timed out"))
        guard case .failed? = atNick.outcome else { Issue.record("not failed"); return }
        #expect(atNick.then.isEmpty)
        #expect(atNick.sentLabels == ["EVAL takeOverDevice {peer:d1}", "SADD {node:n1}:holds", "EVAL take {nick:alice}", "SADD {node:n1}:holds"])
    }

    /// A rename's candidates, one round trip each; nil when others hold them all.
    @Test func aNickClaimTakesTheFirstFreeCandidate() {
        let store = InMemoryRedis()
        store.strings["{nick:bob}"] = "n2/other"
        store.strings["{nick:bob2}"] = "n2/d1"
        // bob2 is this device's through n2: taken over.
        #expect(store.run(NickClaim(candidates: ["Bob", "Bob2", "Bob3"], device: "d1", format: n1)) == .success("Bob2"))
        #expect(store.strings["{nick:bob2}"] == "n1/d1")
        #expect(store.sets["{node:n1}:holds"] == ["{nick:bob2}"])
        #expect(store.run(NickClaim(candidates: ["Bob"], device: "d1", format: n1)) == .success(nil))
        #expect(store.run(NickClaim(candidates: [], device: "d1", format: n1)) == .success(nil))

        var refused = ScriptedRequest(NickClaim(candidates: ["Bob"], device: "d1", format: n1))
        refused.reply(.error("ERR Error running script"))
        #expect(refused.outcome == .failure(.rejected("ERR Error running script")))
    }

    @Test func lookupsReadTheLeases() {
        let store = InMemoryRedis()
        store.strings["{nick:alice}"] = "n2/d1"
        store.strings["{peer:d1}"] = "n2/5/Alice/alice/192.0.2.1"
        #expect(store.run(NickLookup(nick: "ALICE", format: n1)) == .answered(NickHolder(node: "n2", isThisNode: false, device: "d1")))
        #expect(store.run(NickLookup(nick: "bob", format: n1)) == .answered(nil))
        #expect(store.run(DeviceLookup(nick: "Alice", format: n1))
                == .answered(DeviceHolder(node: "n2", isThisNode: false, device: "d1", account: "alice", address: "192.0.2.1")))
        store.executed = []
        #expect(store.run(DeviceLookup(nick: "bob", format: n1)) == .answered(nil))
        #expect(store.executed == ["GET {nick:bob}"])

        var second = ScriptedRequest(DeviceLookup(nick: "Alice", format: n2))
        second.reply(.text("n2/d1"))
        #expect(second.labels == ["GET {peer:d1}"])
        second.fail(.connectionLost("reset"))
        #expect(second.outcome == .failed("\(RoomStoreError.unavailable(RedisFailure.connectionLost("reset").description))"))

        var nick = ScriptedRequest(NickLookup(nick: "alice", format: n1))
        nick.reply(.error("LOADING"))
        guard case .failed? = nick.outcome else { Issue.record("not failed"); return }
    }

    @Test func directMessageReceipts() {
        let store = InMemoryRedis()
        #expect(store.run(DirectReceiptLookup(digest: "d1", id: "m1")) == .answered(nil))
        #expect(store.run(DirectReceiptStore(digest: "d1", id: "m1", ts: 77)) == .some(nil))
        #expect(store.run(DirectReceiptLookup(digest: "d1", id: "m1")) == .answered(77))

        var store2 = ScriptedRequest(DirectReceiptStore(digest: "d1", id: "m1", ts: 77))
        let arguments = store2.waiting[0].command.arguments.map { String(decoding: $0, as: UTF8.self) }
        #expect(arguments == ["SET", ClusterKeys.directReceipt(digest: "d1", id: "m1"), "77", "EX", "600"] && store2.waiting[0].durable)
        store2.fail(.notReplicated("0 of 1"))
        #expect(store2.outcome == .some(.unavailable(RedisFailure.notReplicated("0 of 1").description)))
    }

    /// A release frees a lease only while its holder holds it, and forgets the hold either way.
    @Test func aReleaseFreesOnlyItsOwnLease() {
        let store = InMemoryRedis()
        store.strings["{nick:alice}"] = "n1/d1"
        store.strings["{peer:d1}"] = "n2/9/Alice/-/192.0.2.1"
        store.sets["{node:n1}:holds"] = ["{nick:alice}", "{peer:d1}"]
        #expect(store.run(LeaseRelease("{nick:alice}", holder: "n1/d1", node: "n1")) == .success(true))
        #expect(store.strings["{nick:alice}"] == nil)
        // Taken over by node n2's connection meanwhile: it stays theirs, out of n1's holds.
        #expect(store.run(LeaseRelease("{peer:d1}", holder: "n1/17/", node: "n1", prefix: true)) == .success(false))
        #expect(store.strings["{peer:d1}"] == "n2/9/Alice/-/192.0.2.1")
        #expect(store.sets["{node:n1}:holds"] == [])
        #expect(store.executed == ["EVAL release {nick:alice}", "SREM {node:n1}:holds", "EVAL release {peer:d1}", "SREM {node:n1}:holds"])
        store.strings["{peer:d1}"] = "n1/17/Alice/-/192.0.2.1"
        #expect(store.run(LeaseRelease("{peer:d1}", holder: "n1/17/", node: "n1", prefix: true)) == .success(true))

        // A failed release still forgets the hold; its failure is the outcome.
        var lost = ScriptedRequest(LeaseRelease("{nick:bob}", holder: "n1/d1", node: "n1"))
        lost.fail(.connectionLost("reset"))
        #expect(lost.labels == ["SREM {node:n1}:holds"])
        lost.reply(.integer(0))
        #expect(lost.outcome == .failure(.unavailable(RedisFailure.connectionLost("reset").description)))
    }
}
