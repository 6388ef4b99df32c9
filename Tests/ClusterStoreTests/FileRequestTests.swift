import ChatServerCore
@testable import ClusterStore
import EventRuntime
import RedisClient
import Testing

/// The file record requests (``FilesLoad``, ``FileRecordStore``, ``PartialUploadWriteRequest``,
/// ``PartialUploadsExpiry``) against a scripted Redis.
@Suite struct FileRequestTests {
    static let file = StoredFile(id: "f1", sha256: "aa", size: 10, name: "a.txt", room: "lobby", seq: 4, ts: 99, sender: "Alice",
                                 senderAccount: "alice", uploaderPeer: "p1", uploadID: "u1", owner: "alice", address: "192.0.2.1")
    static let partial = PartialUpload(key: "k1", peer: "p2", id: "u2", owner: "bob", address: "", room: nil, recipient: "carol",
                                       name: "n", size: 100, sha256: "bb", updated: 5, charged: 60)

    @Test func fileRecordsAreReadInOneScript() {
        var load = ScriptedRequest(FilesLoad(files: ["f1", "f9"], uploads: [(peer: "p1", id: "u1"), (peer: "p2", id: "u2")],
                                             scopes: [.everyone, .owner("account:alice")], startedAt: .now()))
        #expect(load.labels == ["EVAL loadFiles"])
        let arguments = load.waiting[0].command.arguments.dropFirst(3 + FileStoreScripts.keys.count).map { String(decoding: $0, as: UTF8.self) }
        #expect(arguments == ["2", "f1", "f9", "2", FileRecordFormat.uploadKey(peer: "p1", id: "u1"), FileRecordFormat.uploadKey(peer: "p2", id: "u2"),
                              FileScope.everyone.key, FileScope.owner("account:alice").key])
        let record = RedisReply.text(FileRecordFormat.encode(Self.file))
        load.reply(.array([.array([record, .null]), .array([record, .null]), .texts(["10", "4"]),
                           .array([.null, .text(FileRecordFormat.encode(Self.partial))]), .texts(["0", "60"]), .texts(["0", "1"])]))
        guard case .loaded(let loaded)? = load.outcome else { Issue.record("not loaded: \(String(describing: load.outcome))"); return }
        #expect(loaded.files == [Self.file, Self.file])
        #expect(loaded.missingFiles == ["f9"])
        #expect(loaded.uploads == [SharedFileCatalog.uploadKey(peer: "p1", id: "u1"): "f1", SharedFileCatalog.uploadKey(peer: "p2", id: "u2"): nil])
        #expect(loaded.partials == [SharedFileCatalog.uploadKey(peer: "p1", id: "u1"): nil,
                                    SharedFileCatalog.uploadKey(peer: "p2", id: "u2"): Self.partial])
        #expect(loaded.usages == [.everyone: FileUsage(fileBytes: 10), .owner("account:alice"): FileUsage(fileBytes: 4, partialBytes: 60, partials: 1)])
    }

    @Test func aFileReadRetriesThenFails() {
        var load = ScriptedRequest(FilesLoad(files: [], uploads: [], scopes: [], startedAt: MonotonicTime(nanoseconds: 1_000_000_000_000)))
        load.reply(.error("CLUSTERDOWN The cluster is down"))
        #expect(load.delay == ReadPatience.retryDelay)
        load.wake()
        load.fail(.connectionLost("reset"), after: .seconds(5))
        #expect(load.outcome == .failed(.unavailable(RedisFailure.connectionLost("reset").description)))

        var strange = ScriptedRequest(FilesLoad(files: [], uploads: [], scopes: [], startedAt: .now()))
        strange.reply(.array([.array([])]))
        #expect(strange.outcome == .malformed)

        var refused = ScriptedRequest(FilesLoad(files: [], uploads: [], scopes: [], startedAt: .now()))
        refused.reply(.error("NOSCRIPT No matching script"))
        #expect(refused.outcome == .failed(.rejected("NOSCRIPT No matching script")))
    }

    @Test func aFinishedUploadsRecordIsStoredDurably() {
        var store = ScriptedRequest(FileRecordStore(Self.file, maxBytes: 1_000))
        #expect(store.labels == ["EVAL storeFile"] && store.waiting[0].durable)
        let arguments = store.waiting[0].command.arguments.dropFirst(3 + FileStoreScripts.keys.count).map { String(decoding: $0, as: UTF8.self) }
        #expect(arguments == ["f1", FileRecordFormat.encode(Self.file), FileRecordFormat.uploadKey(peer: "p1", id: "u1"), "aa", "10", "99", "1000"])
        store.reply(.array([.integer(1), .text(FileRecordFormat.encode(Self.file)), .text("old-content")]))
        #expect(store.outcome == .stored(Self.file, unusedContent: ["old-content"]))

        var strange = ScriptedRequest(FileRecordStore(Self.file, maxBytes: 1_000))
        strange.reply(.integer(1))
        #expect(strange.outcome == .failed("store answered \(RedisReply.integer(1))"))

        var full = ScriptedRequest(FileRecordStore(Self.file, maxBytes: 1_000))
        full.reply(.error("TOOLARGE the files store is full"))
        #expect(full.outcome == .failed("\(RoomStoreError.tooLarge("TOOLARGE the files store is full"))"))
    }

    /// An interrupted upload's record is written behind: 25 retries, 200 ms apart, then lost.
    @Test func aPartialRecordIsRetriedThenGivenUp() {
        var save = ScriptedRequest(PartialUploadWriteRequest(.save(Self.partial), maxBytes: 500))
        #expect(save.labels == ["EVAL writePartial save"])
        for _ in 0..<WriteBehindRetries.limit {
            save.fail(.unavailable("not connected"))
            #expect(save.delay == ReadPatience.retryDelay)
            save.wake()
            #expect(save.labels == ["EVAL writePartial save"])
        }
        save.fail(.unavailable("not connected"))
        #expect(save.outcome == .lost)
        #expect(save.sentLabels.count == WriteBehindRetries.limit + 1)

        var remove = ScriptedRequest(PartialUploadWriteRequest(.remove(key: "k1"), maxBytes: .max))
        #expect(remove.labels == ["EVAL writePartial remove"])
        remove.reply(.error("READONLY You can't write against a read only replica."))
        remove.wake()
        remove.reply(.texts(["evicted-1"]))
        #expect(remove.outcome == .written(unusedContent: ["evicted-1"]))
    }

    @Test func expiredPartialsAreListed() {
        var expiry = ScriptedRequest(PartialUploadsExpiry(cutoff: 1234))
        let arguments = expiry.waiting[0].command.arguments.map { String(decoding: $0, as: UTF8.self) }
        #expect(arguments == ["ZRANGEBYSCORE", "{files}:partial-age", "-inf", "1234", "LIMIT", "0", "1000"])
        expiry.reply(.texts(["k1", "k2"]))
        #expect(expiry.outcome == ["k1", "k2"])

        var lost = ScriptedRequest(PartialUploadsExpiry(cutoff: 1234))
        lost.fail(.connectionLost("reset"))
        #expect(lost.outcome == [])
    }
}
