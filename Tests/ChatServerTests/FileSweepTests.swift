import ChatClientKit
import ChatProtocol
import Foundation
import QuicEngine
import Testing
import TestSupport

/// The sweep at start (PROTOCOL.md section 9, docs/OPERATIONS.md "Files"): what a crash left in
/// the file folder without a record goes; what a record names stays.
@Suite("chat-server stray file sweep", .serialized)
struct FileSweepTests {
    /// Stored content no record names (a crash between the rename into `content/` and the
    /// record's commit) and a partial file no partial upload names, put in the folder by hand
    /// while the server is stopped, are gone after it starts again on the same `--db`; the content
    /// of a stored file and the partial file of an interrupted upload stay, and the stored file
    /// still downloads whole.
    @Test(.standaloneOnly("restarts the server on the same --db; a node of several does not sweep its (shared) files folder"))
    func strayFilesGoAtStartReferencedFilesStay() async throws {
        let database = temporaryDatabasePath()
        let folder = database + ".files"
        defer {
            try? FileManager.default.removeItem(atPath: folder)
            try? FileManager.default.removeItem(atPath: database)
        }
        let stored = FileStreamPump.Body(FileTransferTests.bytes(100_000, seed: 21))
        let first = try ChatServerProcess(["--db", database])
        let port = first.port
        let fileID = try await onDedicatedThread { () -> String? in
            let world = try ChatTestWorld(port: port)
            let carol = try FileTransferTests.joined(world, "carol")
            let pump = FileStreamPump()
            let upload = try pump.send(.upload(id: "kept-1", room: "lobby", name: "kept.bin", size: Int64(stored.count),
                                               sha256: stored.sha256), body: stored, on: carol)
            _ = world.run(seconds: 60) { carol.finished.contains(upload) }
            // An interrupted upload: its partial file has its row and must stay for a resume.
            _ = try FileResumeTests.sendHalf(world, peer: ChatSession.randomPeerID())
            return carol.messages(on: upload).first?.file
        }
        first.stop()
        let fileID2 = try #require(fileID)
        let heldPartials = try FileManager.default.contentsOfDirectory(atPath: folder + "/partial")
        #expect(heldPartials.count == 1)
        #expect(FileManager.default.fileExists(atPath: folder + "/content/" + stored.sha256))

        let strayContent = folder + "/content/" + FileStreamPump.Body(FileTransferTests.bytes(5_000, seed: 22)).sha256
        let strayPartial = folder + "/partial/stray-partial-key"
        #expect(FileManager.default.createFile(atPath: strayContent, contents: Data(FileTransferTests.bytes(5_000, seed: 22))))
        #expect(FileManager.default.createFile(atPath: strayPartial, contents: Data(repeating: 7, count: 3_000)))

        let second = try ChatServerProcess(["--db", database])
        defer { second.stop() }
        let port2 = second.port
        let downloaded = try await onDedicatedThread { () -> [UInt8] in
            let world = try ChatTestWorld(port: port2)
            let bob = try FileTransferTests.joined(world, "bob")
            let download = try FileStreamPump().send(.download(file: fileID2), on: bob)
            // The worker runs its jobs in order: once the download is done, the sweep's removals are too.
            _ = world.run(seconds: 60) { bob.finished.contains(download) }
            let answer = bob.bytes[download] ?? []
            guard let newline = answer.firstIndex(of: 10) else { return [] }
            return Array(answer[(newline + 1)...])
        }
        #expect(downloaded == stored.slice(0..<stored.count))
        #expect(!FileManager.default.fileExists(atPath: strayContent))
        #expect(!FileManager.default.fileExists(atPath: strayPartial))
        #expect(FileManager.default.fileExists(atPath: folder + "/content/" + stored.sha256))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/partial") == heldPartials)
        #expect(second.process.lineCount { $0.contains("stray files removed") && $0.contains("content=1") && $0.contains("partial=1") } == 1)
    }
}
