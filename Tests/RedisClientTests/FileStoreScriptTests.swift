import ChatServerCore
import ClusterStore
import Foundation
import RedisClient
import TestSupport
import Testing

/// The files store's scripts (``FileStoreScripts``) against a real redis-server: eviction by
/// ``FileEvictionRule`` on the cases the other catalogs are tested with, and what a finishing
/// upload counts. (The checks throw: an `#expect` on the harness's own thread is not the test's.)
@Suite(.serialized) struct FileStoreScriptTests {
    /// Each case's files stored, then its upload saved with a charge of what it adds and the
    /// limit one byte short: the one file pushed out is the case's.
    @Test func evictionFollowsTheSharedCases() async throws {
        try await RedisHarness.withServer { harness, server in
            let client = try harness.client(RedisHarness.standalone(server))
            var wrong: [String] = []
            for example in EvictionCase.all {
                _ = try harness.reply(client, RedisCommand("FLUSHALL"))
                var idOfContent: [String: String] = [:]
                for (index, file) in example.files.enumerated() {
                    let stored = Self.file(file.id, content: index + 1, size: file.size, ts: file.ts, owner: file.owner, address: file.address)
                    idOfContent[stored.sha256] = file.id
                    _ = try Self.store(stored, maxBytes: 1 << 40, harness, client)
                }
                let total = example.files.reduce(0) { $0 + $1.size }
                let upload = PartialUpload(key: "k-upload", peer: "uploader", id: "u", owner: "peer:uploader", room: "dev", recipient: nil,
                                           name: "up.bin", size: example.adding, sha256: String(repeating: "f", count: 64), updated: 100,
                                           charged: example.adding)
                let unused = try Self.savePartial(upload, party: example.uploaderParty, maxBytes: total + example.adding - 1, harness, client)
                let evicted = unused.map { idOfContent[$0] ?? $0 }
                if evicted != [example.evicted] { wrong.append("\(example.name): \(evicted), not \(example.evicted)") }
            }
            guard wrong.isEmpty else { throw HarnessFailure(wrong.joined(separator: "; ")) }
        }
    }

    /// A finishing upload's record is stored while its upload's charge still counts (the node
    /// removes that record after): its bytes count once, so a store exactly at the limit pushes
    /// nothing out. Before the fix its size counted twice and the oldest file went.
    @Test func aFinishingUploadCountsOnce() async throws {
        try await RedisHarness.withServer { harness, server in
            let client = try harness.client(RedisHarness.standalone(server))
            _ = try Self.store(Self.file("a", content: 1, size: 100, ts: 1, owner: "account:alice"), maxBytes: 300, harness, client)
            _ = try Self.store(Self.file("b", content: 2, size: 100, ts: 2, owner: "account:bob"), maxBytes: 300, harness, client)
            let finishing = Self.file("c", content: 3, size: 100, ts: 3, owner: "account:carol")
            let upload = PartialUpload(key: "k-c", peer: finishing.uploaderPeer, id: finishing.uploadID, owner: finishing.owner, room: "dev",
                                       recipient: nil, name: "c.bin", size: 100, sha256: finishing.sha256, updated: 3)
            let whileUploading = try Self.savePartial(upload, party: finishing.owner, maxBytes: 300, harness, client)
            let whenStored = try Self.store(finishing, maxBytes: 300, harness, client)
            let kept = try harness.reply(client, RedisCommand("HEXISTS", "{files}:records", "a"))
            guard whileUploading.isEmpty, whenStored.isEmpty, kept == .integer(1) else {
                throw HarnessFailure("the oldest file was pushed out: \(whileUploading), \(whenStored), \(kept)")
            }
        }
    }

    static func file(_ id: String, content: Int, size: Int64, ts: Int64, owner: String, address: String = "") -> StoredFile {
        let peer = String(owner.split(separator: ":").last ?? "p")
        return StoredFile(id: id, sha256: String(format: "%064x", content), size: size, name: "\(id).bin", room: nil, seq: nil, ts: ts,
                          sender: peer, senderAccount: nil, uploaderPeer: peer, uploadID: "u-\(id)", owner: owner, address: address)
    }

    /// Stores `file` as a finished upload's record; answers the content no record uses any more.
    static func store(_ file: StoredFile, maxBytes: Int64, _ harness: RedisHarness, _ client: RedisClient) throws -> [String] {
        guard case .send(let commands) = FileRecordStore(file, maxBytes: maxBytes).start() else { throw HarnessFailure("no command") }
        let reply = try harness.reply(client, commands[0].command, key: commands[0].key)
        guard let parts = reply.elements, parts.first == .integer(1) else { throw HarnessFailure("store answered \(reply)") }
        return parts.dropFirst(2).compactMap(\.text)
    }

    /// Saves an upload's record for `party`; answers the content no record uses any more.
    static func savePartial(_ upload: PartialUpload, party: String, maxBytes: Int64, _ harness: RedisHarness,
                            _ client: RedisClient) throws -> [String] {
        let arguments = ["save", upload.key, FileRecordFormat.encode(upload), FileRecordFormat.uploadKey(peer: upload.peer, id: upload.id),
                         String(upload.updated), String(maxBytes), party]
        let reply = try harness.reply(client, FileStoreScripts.script(FileStoreScripts.writePartialScript, arguments), key: FileStoreScripts.keys[0])
        return reply.elements?.compactMap(\.text) ?? []
    }
}
