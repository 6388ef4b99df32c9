import ChatProtocol
@testable import ChatServerCore
import Dispatch
import LocalStore
import SQLiteStorage
import RuntimeCore
import Testing

/// One server's room log off the event loop (docs/PROTOCOL.md, "One server's room log"): an
/// event is delivered when its seq is assigned and acknowledged when its worker round commits;
/// a round's appends are one transaction; seqs are reserved durably ahead of use, so a crash never
/// reuses one; the queue is bounded. The test thread plays the event loop.
@Suite struct LocalStoreAdapterTests {
    /// The worker's outcomes as they come, for the test thread to take.
    final class Collected: Sendable {
        // A LockedValue: the standard library's Mutex locks through a futex ThreadSanitizer cannot
        // see, and it reported the worker's append and the test's take as a race.
        let items = LockedValue<[StoreWorker.Outcome]>([])
        let arrived = DispatchSemaphore(value: 0)
    }

    /// A room log on a worker whose disk the test may hold, with the worker's outcomes collected
    /// for the "loop" (the test thread) to hand to the log.
    final class Rig: Sendable {
        let disk: GatedDisk
        let worker: StoreWorker
        let collected: Collected

        init(disk: GatedDisk = GatedDisk(InMemoryRoomLogDisk()), accounts: any AccountStore = InMemoryAccountStore(),
             files: any FileCatalog = InMemoryFileCatalog(history: InMemoryHistoryStore()),
             retain: Int = 1000, commitDelay: Duration = .zero) {
            self.disk = disk
            let collected = Collected()
            self.collected = collected
            worker = StoreWorker(disk: disk, accounts: accounts, files: files, retainPerRoom: retain, commitDelay: commitDelay) { outcome in
                collected.items.withLock { $0.append(outcome) }
                collected.arrived.signal()
            }
        }

        /// The next `count` outcomes, waiting for each (the worker's thread makes them).
        func take(_ count: Int) -> [StoreWorker.Outcome] {
            for _ in 0..<count {
                if collected.arrived.wait(timeout: .now() + .seconds(30)) == .timedOut {
                    Issue.record("no outcome from the worker")
                    break
                }
            }
            return collected.items.withLock { taken in
                let first = Array(taken.prefix(count))
                taken.removeFirst(first.count)
                return first
            }
        }

        /// Hands the next `count` outcomes to the log, as the loop does; what it answers.
        func step(_ log: LocalStoreAdapter, outcomes count: Int = 1) -> [LocalStoreAnswer] {
            take(count).flatMap { log.workerFinished($0) }
        }

        func makeLog(pendingLimit: Int = 100_000, receiptLimit: Int = 100_000,
                     reservationRange: Int64 = LocalStoreAdapter.defaultReservationRange, loginFailureKeys: Int = 100_000,
                     idleRoomLimit: Int? = nil) throws -> LocalStoreAdapter {
            LocalStoreAdapter(worker: worker, reserved: try disk.reservedSequences(), receipts: try disk.storedReceipts(),
                         pendingLimit: pendingLimit, receiptLimit: receiptLimit, reservationRange: reservationRange,
                         loginFailureKeys: loginFailureKeys, idleRoomLimit: idleRoomLimit)
        }
    }

    /// A disk whose commits wait while the test holds it.
    final class GatedDisk: RoomLogDisk, @unchecked Sendable {
        // @unchecked: `inner` is used by the worker's thread only; the gate is a LockedValue and semaphores.
        let inner: any RoomLogDisk
        private let held = LockedValue(false)
        private let opened = DispatchSemaphore(value: 0)
        /// Signalled when a commit starts (held or not).
        let entered = DispatchSemaphore(value: 0)
        let batches = LockedValue<[RoomLogBatch]>([])
        let failure = LockedValue<HistoryStoreError?>(nil)

        init(_ inner: any RoomLogDisk) { self.inner = inner }

        func hold() { held.withLock { $0 = true } }
        func release() {
            held.withLock { $0 = false }
            opened.signal()
        }
        func waitForCommit() {
            #expect(entered.wait(timeout: .now() + .seconds(30)) == .success)
        }

        func forget(room: String) { inner.forget(room: room) }
        func reservedSequences() throws -> [String: Int64] { try inner.reservedSequences() }
        func storedReceipts() throws -> [MessageReceipt] { try inner.storedReceipts() }
        func events(inRoom room: String, after: Int64?, before: Int64?, limit: Int, newest: Bool) throws -> [StoredEvent] {
            try inner.events(inRoom: room, after: after, before: before, limit: limit, newest: newest)
        }
        func commit(_ batch: RoomLogBatch, retainPerRoom: Int) throws {
            entered.signal()
            while held.withLock({ $0 }) { opened.wait() }
            if let failure = failure.withLock({ $0 }) { throw failure }
            batches.withLock { $0.append(batch) }
            try inner.commit(batch, retainPerRoom: retainPerRoom)
        }
    }

    static func append(_ token: UInt64, room: String = "lobby", text: String, id: String? = nil, peer: String = "p1",
                       origin: ClientID? = ClientID(1), membership: MembershipChange? = nil, policy: PolicyChange? = nil,
                       kind: StoredEventKind = .msg) -> RoomEventAppend {
        let message = ChatMessage(type: kind.rawValue, text: text, sender: "alice", room: room, id: id, seq: 0, ts: 1_000)
        let encoding = EncodingAroundSeq(message)
        return RoomEventAppend(token: token, room: room, kind: kind, beforeSeq: encoding.beforeSeq, afterSeq: encoding.afterSeq,
                               origin: origin, dedupe: id.map { "\(peer):\($0)" }, membership: membership, policy: policy, ts: 1_000)
    }

    static func delivered(_ answers: [LocalStoreAnswer]) -> [Int64] {
        answers.compactMap { if case .delivered(let event) = $0 { event.seq } else { nil } }
    }

    static func appended(_ answers: [LocalStoreAnswer]) -> [UInt64: RoomAppendOutcome] {
        var outcomes: [UInt64: RoomAppendOutcome] = [:]
        for case .appended(let token, let outcome) in answers { outcomes[token] = outcome }
        return outcomes
    }

    @Test func anEventIsDeliveredWhenSequencedAndAcknowledgedWhenCommitted() throws {
        let rig = Rig()
        let log = try rig.makeLog()
        #expect(log.follow("lobby", after: 0).isEmpty)
        // A new room first reserves its seqs: the first event waits for that commit.
        #expect(log.append(Self.append(1, text: "one", id: "a")).isEmpty)
        let reservation = rig.take(1)
        // The disk stalls from here: the events are delivered at once all the same, and not acknowledged.
        rig.disk.hold()
        let first = reservation.flatMap { log.workerFinished($0) }
        #expect(Self.delivered(first) == [1])
        #expect(Self.appended(first).isEmpty)
        rig.disk.waitForCommit()
        rig.disk.waitForCommit()
        let second = log.append(Self.append(2, text: "two", id: "b"))
        #expect(Self.delivered(second) == [2])
        #expect(log.pending == 2)
        #expect(rig.collected.items.withLock { $0.isEmpty })
        rig.disk.release()
        let acks = rig.step(log, outcomes: 2)
        #expect(Self.appended(acks) == [1: .stored(seq: 1, duplicate: false), 2: .stored(seq: 2, duplicate: false)])
        #expect(log.pending == 0)
        let stored = try rig.disk.events(inRoom: "lobby", after: nil, before: nil, limit: 10, newest: true)
        #expect(stored.map(\.text) == ["one", "two"])
        #expect(stored.map(\.id) == ["a", "b"])
    }

    @Test func theAppendsOfARoundAreOneTransaction() throws {
        let inner = InMemoryRoomLogDisk()
        let rig = Rig(disk: GatedDisk(inner))
        // One reservation covers every seq of the test, so nothing waits for another.
        let log = try rig.makeLog(reservationRange: 100_000)
        _ = log.append(Self.append(1, text: "first"))
        var answers = rig.step(log)
        while Self.appended(answers).isEmpty { answers += rig.step(log) }
        rig.disk.waitForCommit()
        rig.disk.waitForCommit()
        // The second event's commit is held; 2,500 more queue behind it meanwhile.
        rig.disk.hold()
        _ = log.append(Self.append(2, text: "second"))
        rig.disk.waitForCommit()
        for token in UInt64(3)...2502 { _ = log.append(Self.append(token, text: "m\(token)")) }
        rig.disk.release()
        while Self.appended(answers).count < 2502 { answers += rig.step(log) }
        #expect(Self.appended(answers)[2502] == .stored(seq: 2502, duplicate: false))
        // The reservation, the first and second events, then one round for the queued ones, in
        // transactions of 1,000 events at most.
        #expect(rig.disk.batches.withLock { $0 }.map(\.events.count) == [0, 1, 1, 1000, 1000, 500])
        #expect(inner.commits == 6)
    }

    /// The test-only slow disk (`commitDelay`, an fsync of 50 ms): events go on being delivered at
    /// once, and what queues during a commit shares the next one, so the disk's rate of commits,
    /// not of events, is what a slow disk limits.
    @Test func aSlowDiskCommitsWhatQueuedInOneGo() throws {
        let rig = Rig(commitDelay: .milliseconds(50))
        let log = try rig.makeLog()
        _ = log.follow("lobby", after: 0)
        var answers = log.append(Self.append(1, text: "first"))
        while Self.delivered(answers).isEmpty { answers += rig.step(log) }
        for token in UInt64(2)...100 {
            #expect(Self.delivered(log.append(Self.append(token, text: "m\(token)"))) == [Int64(token)])
        }
        while Self.appended(answers).count < 100 { answers += rig.step(log) }
        // Without group commit: 101 commits (the reservation and one per event), 5 s of this disk.
        #expect(rig.disk.batches.withLock { $0 }.count < 20)
    }

    @Test func aCrashNeverReusesASeqMembersSaw() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("chat.db")
        var seen: [Int64] = []
        do {
            let rig = Rig(disk: GatedDisk(try SQLiteHistoryStore(path: path)))
            let log = try rig.makeLog()
            _ = log.follow("lobby", after: 0)
            _ = log.append(Self.append(1, text: "one"))
            seen += Self.delivered(rig.step(log))
            rig.disk.waitForCommit()
            // The process dies with these delivered and never committed.
            rig.disk.hold()
            rig.disk.failure.withLock { $0 = HistoryStoreError("killed") }
            for token in UInt64(2)...5 { seen += Self.delivered(log.append(Self.append(token, text: "lost \(token)"))) }
            rig.disk.release()
            rig.worker.waitUntilIdle()
        }
        #expect(seen == [1, 2, 3, 4, 5])
        let reopened = try SQLiteHistoryStore(path: path)
        let reserved = try reopened.reservedSequences()["lobby"] ?? 0
        #expect(reserved >= seen.max()!)
        let rig = Rig(disk: GatedDisk(reopened))
        let log = try rig.makeLog()
        #expect(log.follow("lobby", after: reserved).isEmpty)
        // Its seqs are reserved again first: the event waits for that commit.
        var answers = log.append(Self.append(9, text: "after the crash"))
        while Self.delivered(answers).isEmpty { answers += rig.step(log) }
        #expect(Self.delivered(answers) == [reserved + 1])
        #expect(reserved + 1 > seen.max()!)
    }

    @Test func aResendIsAnsweredWithTheFirstSeqAcrossARestart() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("chat.db")
        do {
            let rig = Rig(disk: GatedDisk(try SQLiteHistoryStore(path: path)))
            let log = try rig.makeLog()
            _ = log.append(Self.append(1, text: "hello", id: "m1"))
            var answers = rig.step(log)
            while Self.appended(answers).isEmpty { answers += rig.step(log) }
            #expect(Self.appended(answers)[1] == .stored(seq: 1, duplicate: false))
            #expect(log.append(Self.append(2, text: "hello", id: "m1")).isEmpty)
            #expect(Self.appended(rig.step(log))[2] == .stored(seq: 1, duplicate: true, firstTs: 1_000))
        }
        let rig = Rig(disk: GatedDisk(try SQLiteHistoryStore(path: path)))
        let log = try rig.makeLog()
        _ = log.append(Self.append(3, text: "hello", id: "m1"))
        #expect(Self.appended(rig.step(log))[3] == .stored(seq: 1, duplicate: true, firstTs: 1_000))
        // Another peer's id is its own.
        _ = log.append(Self.append(4, text: "hello", id: "m1", peer: "p2"))
        var answers: [LocalStoreAnswer] = []
        while Self.appended(answers).isEmpty { answers += rig.step(log) }
        #expect(Self.appended(answers)[4] == .stored(seq: 1001, duplicate: false))
    }

    @Test func aDirectMessagesReceiptIsKeptAcrossARestart() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("chat.db")
        do {
            let rig = Rig(disk: GatedDisk(try SQLiteHistoryStore(path: path)))
            let log = try rig.makeLog()
            log.storeDirectReceipt(peer: "p1", id: "d1", ts: 42)
            #expect(log.lookUpDirectReceipt(1, peer: "p1", id: "d1") == [.directReceiptLookedUp(1, .answered(MessageReceipt(peer: "p1", id: "d1", ts: 42)))])
            rig.worker.waitUntilIdle()
        }
        let rig = Rig(disk: GatedDisk(try SQLiteHistoryStore(path: path)))
        let log = try rig.makeLog()
        #expect(log.lookUpDirectReceipt(2, peer: "p1", id: "d1") == [.directReceiptLookedUp(2, .answered(MessageReceipt(peer: "p1", id: "d1", ts: 42)))])
        #expect(log.lookUpDirectReceipt(3, peer: "p2", id: "d1") == [.directReceiptLookedUp(3, .answered(nil))])
    }

    @Test func aFailedCommitIsReportedAndItsIdMayBeResent() throws {
        let rig = Rig()
        let log = try rig.makeLog()
        _ = log.append(Self.append(1, text: "reserve"))
        var answers = rig.step(log)
        while Self.appended(answers).isEmpty { answers += rig.step(log) }
        rig.disk.failure.withLock { $0 = HistoryStoreError("disk full") }
        _ = log.append(Self.append(2, text: "lost", id: "x"))
        #expect(Self.appended(rig.step(log))[2] == .failed("disk full"))
        rig.disk.failure.withLock { $0 = nil }
        _ = log.append(Self.append(3, text: "lost", id: "x"))
        #expect(Self.appended(rig.step(log))[3] == .stored(seq: 3, duplicate: false))
    }

    @Test func theQueueIsBounded() throws {
        let rig = Rig()
        let log = try rig.makeLog(pendingLimit: 2)
        rig.disk.hold()
        _ = log.append(Self.append(1, text: "one"))
        _ = log.append(Self.append(2, text: "two"))
        #expect(Self.appended(log.append(Self.append(3, text: "three")))[3] == .refused("the store's queue is full (2 events)"))
        rig.disk.release()
        var answers: [LocalStoreAnswer] = []
        while Self.appended(answers).count < 2 { answers += rig.step(log) }
        #expect(log.pending == 0)
        _ = log.append(Self.append(4, text: "four"))
        #expect(Self.appended(rig.step(log))[4] == .stored(seq: 3, duplicate: false))
    }

    @Test func aFollowDeliversWhatCameBeforeItInOrder() throws {
        let rig = Rig()
        let log = try rig.makeLog()
        _ = log.append(Self.append(1, text: "m1"))
        var answers = rig.step(log)
        for token in UInt64(2)...100 { answers += log.append(Self.append(token, text: "m\(token)")) }
        while Self.appended(answers).count < 100 { answers += rig.step(log) }
        #expect(Self.delivered(answers).isEmpty)
        // Older than the events held in memory: read from the disk first.
        #expect(log.follow("lobby", after: 10).isEmpty)
        let followed = rig.step(log)
        #expect(Self.delivered(followed) == Array(11...100))
        #expect(Self.delivered(log.append(Self.append(101, text: "live"))) == [101])
        // Recent enough: at once.
        #expect(Self.delivered(log.follow("lobby", after: 99)) == [100, 101])
        // Unfollowed, a room lets its recent events go: a later follow reads them.
        log.unfollow("lobby")
        #expect(log.follow("lobby", after: 99).isEmpty)
        var again: [LocalStoreAnswer] = []
        while Self.delivered(again).isEmpty { again += rig.step(log) }
        #expect(Self.delivered(again) == [100, 101])
    }

    @Test func aClaimTakesAnOwnerlessRoomOnly() throws {
        let rig = Rig()
        let log = try rig.makeLog()
        _ = log.append(Self.append(1, text: "", policy: .owner(room: "lobby", account: "alice"), kind: .op))
        var answers = rig.step(log)
        while Self.appended(answers).isEmpty { answers += rig.step(log) }
        #expect(Self.appended(answers)[1] == .stored(seq: 1, duplicate: false))
        #expect(Self.appended(log.append(Self.append(2, text: "", policy: .owner(room: "lobby", account: "bob"), kind: .op)))[2]
                == .settingTaken("alice"))
    }

    @Test func roomStateIsThisServersMembersAndTheStoredSettings() throws {
        let accounts = InMemoryAccountStore()
        try accounts.save(.owner(room: "lobby", account: "carol"))
        let rig = Rig(accounts: accounts)
        let log = try rig.makeLog()
        let alice = MemberRecord(nick: "alice", account: nil, status: .online, peer: "p1")
        _ = log.append(Self.append(1, text: "", membership: .add(alice), kind: .joined))
        var answers = rig.step(log)
        while Self.appended(answers).isEmpty { answers += rig.step(log) }
        log.readState(7, room: "lobby")
        #expect(rig.step(log) == [.roomState(7, seq: 1, [alice], RoomSettings(owner: "carol"))])
        // The owner read from the disk decides a claim.
        #expect(Self.appended(log.append(Self.append(2, text: "", policy: .owner(room: "lobby", account: "alice"), kind: .op)))[2]
                == .settingTaken("carol"))
        // A change its event announces is saved with it.
        let topic = RoomTopic(text: "plans", setBy: "alice", ts: 5)
        _ = log.append(Self.append(3, text: "plans", policy: .topic(room: "lobby", topic), kind: .topic))
        #expect(Self.appended(rig.step(log))[3] == .stored(seq: 2, duplicate: false))
        log.writePolicy(.inviteAdded(room: "lobby", .account("dave")))
        rig.worker.waitUntilIdle()
        let stored = try accounts.roomSettings(of: "lobby")
        #expect(stored.topic == topic)
        #expect(stored.invites == [.account("dave")])
    }

    @Test func accountsAreReadAndWrittenInTheOrderAsked() throws {
        let directory = try TemporaryDirectory()
        let rig = Rig(accounts: try SQLiteAccountStore(path: directory.file("chat.db")))
        let log = try rig.makeLog()
        let alice = StoredAccount(name: "Alice", passwordHash: "h1", created: 5)
        let taken = StoredAccount(name: "alice", passwordHash: "h2", created: 6)
        log.writeAccount(1, .create(alice, certificate: "c1"))
        log.writeAccount(2, .create(taken, certificate: nil))
        log.writeAccount(3, .bind(account: "alice", certificate: "c2"))
        log.loadAccounts(4, names: ["ALICE", "bob"])
        #expect(rig.step(log, outcomes: 4) == [
            .accountWritten(1, .written, .create(alice, certificate: "c1")),
            .accountWritten(2, .exists, .create(taken, certificate: nil)),
            .accountWritten(3, .written, .bind(account: "alice", certificate: "c2")),
            .accountsLoaded(4, ["ALICE": LoadedAccount(account: alice, certificates: ["c1", "c2"]), "bob": LoadedAccount?.none]),
        ])
        // The console's `unregister`: the password and every certificate go, the name stays.
        log.writeAccount(5, .retire(account: "alice"))
        log.loadAccounts(6, names: ["alice"])
        let retired = StoredAccount(name: "Alice", passwordHash: nil, created: 5)
        #expect(rig.step(log, outcomes: 2).last == .accountsLoaded(6, ["alice": LoadedAccount(account: retired, certificates: [])]))
    }

    @Test func passwordAttemptsAreCountedBeforeTheirHashAndTakenBackWhenRight() throws {
        let rig = Rig()
        let log = try rig.makeLog()
        func reserve(_ ticket: UInt64, address: String = "10.0.0.1", now: Int64 = 1_000) -> LoginAttemptReservation? {
            let attempt = LoginAttempt(ticket: ticket, account: "alice", address: address)
            guard case .loginAttemptReserved(let answered, let reservation)? = log.reserveLoginAttempt(
                attempt, limit: 2, windowMilliseconds: 60_000, now: now).first, answered == attempt else { return nil }
            return reservation
        }
        #expect(reserve(1) == .reserved)
        #expect(reserve(2) == .reserved)
        // Two counted (their hashes still running): the account is at its limit, from any address.
        #expect(reserve(3, address: "10.0.0.2") == .locked)
        // The first was right: taken back, and a next attempt is counted.
        log.releaseLoginAttempt(LoginAttempt(ticket: 1, account: "alice", address: "10.0.0.1"))
        #expect(reserve(4) == .reserved)
        // The window passed: counted again.
        #expect(reserve(5, now: 62_000) == .reserved)
    }

    @Test func leasesKeepNicksAndDevicesApartOnOneServer() throws {
        let rig = Rig()
        let log = try rig.makeLog()
        func hello(_ token: UInt64, peer: String, client: ClientID, account: String? = nil, _ candidates: [String]) -> HelloClaim? {
            guard case .helloClaimed(token, .answered(let claim))? = log.perform(
                .claimHello(token, peer: peer, client: client, account: account, candidates: candidates, address: "10.0.0.1"),
                now: 0)?.first else { return nil }
            return claim
        }
        #expect(hello(1, peer: "p1", client: 1, account: "alice", ["alice"]) == HelloClaim(deviceTaken: true, previous: nil, nick: "alice"))
        // Another device: the nick is held, the next candidate is free.
        #expect(hello(2, peer: "p2", client: 2, ["alice", "alice_"])?.nick == "alice_")
        // The same device again, logged in to the same account: its own nick, and who held it before.
        let again = hello(3, peer: "p1", client: 3, account: "alice", ["alice"])
        #expect(again?.nick == "alice" && again?.previous?.client == 1 && again?.previous?.isThisNode == true)
        // A guest on that device while an account's session holds it: the lease stays the account's.
        #expect(hello(4, peer: "p1", client: 4, ["bob"]) == HelloClaim(deviceTaken: false, previous: again.map { _ in
            PeerHolder(node: "local", client: 3, nick: "alice", account: "alice", isThisNode: true) }, nick: nil))
        #expect(log.perform(.lookUpNick(5, nick: "ALICE"), now: 0) == [.nickLookedUp(5, .answered(NickHolder(node: "local", isThisNode: true,
                                                                                                             device: "p1")))])
        // Released by its connection: free for anyone.
        _ = log.perform(.releaseIdentity(peer: "p1", client: 3, nick: "alice", andPeer: true), now: 0)
        #expect(log.perform(.claimNick(6, candidates: ["alice"], peer: "p2"), now: 0) == [.nickClaimed(6, .answered("alice"))])
        #expect(log.perform(.lookUpDevice(7, nick: "alice"), now: 0) == [.deviceLookedUp(7, .answered(DeviceHolder(
            node: "local", isThisNode: true, device: "p2", account: nil, address: "10.0.0.1")))])
    }

    @Test func fileRecordsAreStoredWithRoomMadeAndReadForHeaders() throws {
        let directory = try TemporaryDirectory()
        let rig = Rig(files: try SQLiteHistoryStore(path: directory.file("chat.db")))
        let log = try rig.makeLog()
        func file(_ id: String, owner: String, peer: String, ts: Int64) -> StoredFile {
            StoredFile(id: id, sha256: "sha-" + id, size: 60, name: id + ".txt", room: "lobby", seq: nil, ts: ts, sender: owner,
                       senderAccount: owner, uploaderPeer: peer, uploadID: "u-" + id, owner: "account:" + owner)
        }
        let first = file("a", owner: "alice", peer: "p1", ts: 1)
        let second = file("b", owner: "bob", peer: "p2", ts: 2)
        _ = log.perform(.storeFileRecord(1, first, maxBytes: 100), now: 0)
        #expect(rig.step(log) == [.fileRecordStored(1, .stored(first, unusedContent: []))])
        // 120 bytes under a 100-byte bound: alice's file (as much as bob will hold, and older) goes.
        _ = log.perform(.storeFileRecord(2, second, maxBytes: 100), now: 0)
        #expect(rig.step(log) == [.fileRecordStored(2, .stored(second, unusedContent: ["sha-a"]))])
        // The same upload again (a resend after a lost answer): its first record, nothing evicted.
        var resent = second
        resent.id = "b2"
        _ = log.perform(.storeFileRecord(3, resent, maxBytes: 100), now: 0)
        #expect(rig.step(log) == [.fileRecordStored(3, .stored(second, unusedContent: []))])
        _ = log.perform(.loadFiles(4, FileQuery(files: ["a", "b"], uploads: [(peer: "p2", id: "u-b")], scopes: [.everyone])), now: 0)
        guard case .filesLoaded(4, let loaded?) = rig.step(log).first else {
            Issue.record("no files loaded")
            return
        }
        #expect(loaded.files.map(\.id) == ["b", "b"])
        #expect(loaded.missingFiles == ["a"])
        #expect(loaded.uploads == [SharedFileCatalog.uploadKey(peer: "p2", id: "u-b"): "b"])
        #expect(loaded.partials == [SharedFileCatalog.uploadKey(peer: "p2", id: "u-b"): PartialUpload?.none])
        // An interrupted upload's charge counts: room is made for it.
        let partial = PartialUpload(key: "k1", peer: "p3", id: "u-c", owner: "account:carol", room: "lobby", recipient: nil,
                                    name: "c.txt", size: 50, sha256: "sha-c", updated: 10_000, charged: 50)
        _ = log.perform(.writePartialUploads([.save(partial)], maxBytes: 100), now: 0)
        #expect(rig.step(log) == [.contentEvicted(["sha-b"])])
        // Not resumed within the hour: expired.
        log.expirePartials(olderThan: 3_600_000, now: 3_700_000)
        #expect(rig.step(log) == [.partialsExpired(["k1"])])
    }

    @Test func membersAreThisServersAndAReconnectIsAdopted() throws {
        let rig = Rig()
        let log = try rig.makeLog()
        let alice = MemberRecord(nick: "alice", account: nil, status: .online, peer: "p1")
        _ = log.append(Self.append(1, text: "", membership: .add(alice), kind: .joined))
        var answers = rig.step(log)
        while Self.appended(answers).isEmpty { answers += rig.step(log) }
        #expect(Self.appended(answers)[1] == .stored(seq: 1, duplicate: false))
        // The same device again: nothing stored, the room's seq.
        #expect(Self.appended(log.append(Self.append(2, text: "", membership: .add(alice), kind: .joined)))[2]
                == .stored(seq: 1, duplicate: true))
        // A departure of a device that is not the member's: nothing stored (seq 0).
        #expect(Self.appended(log.append(Self.append(3, text: "", membership: .removeIfHeld(["alice"], by: .thisNode(peer: "p9")),
                                                     kind: .left)))[3] == .stored(seq: 0, duplicate: false))
        #expect(log.members(of: "lobby").map(\.nick) == ["alice"])
    }

    @Test func theSchemaReservesEveryRoomsLastSeq() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("chat.db")
        let store = try SQLiteHistoryStore(path: path)
        try store.append(events: [StoredEvent(room: "a", seq: 7, ts: 1, kind: .msg, sender: "x", text: "t")], receipts: [],
                         retainPerRoom: 10)
        try store.commit(RoomLogBatch(reservations: ["b": 2000]), retainPerRoom: 10)
        try store.commit(RoomLogBatch(reservations: ["b": 1500]), retainPerRoom: 10)
        // Reservations only rise; a room's events count as its reservation (a file the synchronous store wrote).
        #expect(try store.reservedSequences() == ["a": 7, "b": 2000])
        #expect(try store.events(inRoom: "a", after: 0, before: nil, limit: 5, newest: false).map(\.seq) == [7])
    }
}
