import Foundation
import Glibc
import QuicEngine
import TestSupport
import Testing

/// chat-client's line mode with files (PROTOCOL.md section 9), end to end with the real binaries:
/// `/send` from one client, the shared file's line and `/get` in another, the bytes compared.
@Suite("chat-client line mode files", .serialized)
struct LineModeFileTests {
    /// Alice sends a 3 MB file; Bob sees `shared data.bin (2.9 MiB) [file 1]`, gets it twice (the
    /// second time as `data (1).bin`, never overwriting), each SHA-256 checked and equal to the original.
    @Test func sendAndGet() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-files-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder + "/out", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<3_000_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/data.bin"))
        let server = try ChatServerProcess()
        defer { server.stop() }
        let bob = try LineModeTests.client(port: server.port, nick: "bob")
        #expect(bob.waitForLine(timeout: 10) { $0.contains("bob joined") } != nil)
        let alice = try LineModeTests.client(port: server.port, nick: "alice")
        alice.write("/send \(folder)/data.bin\n")
        #expect(alice.waitForLine(timeout: 60) { $0.contains("[transfer 1] sent data.bin") } != nil)
        let shared = bob.waitForLine(timeout: 30) { $0.contains("* alice shared data.bin (2.9 MiB) [file 1]") }
        #expect(shared != nil)
        bob.write("/get 1 \(folder)/out\n")
        #expect(bob.waitForLine(timeout: 60) { $0.contains("saved \(folder)/out/data.bin (SHA-256 checked)") } != nil)
        bob.write("/get 1 \(folder)/out\n")
        #expect(bob.waitForLine(timeout: 60) { $0.contains("saved \(folder)/out/data (1).bin (SHA-256 checked)") } != nil)
        #expect(FileManager.default.contents(atPath: folder + "/out/data.bin") == Data(bytes))
        #expect(FileManager.default.contents(atPath: folder + "/out/data (1).bin") == Data(bytes))
        #expect(!FileManager.default.fileExists(atPath: folder + "/out/data.bin.part"))
        bob.write("/get 7\n/send /nonexistent/file\n")
        #expect(bob.waitForLine(timeout: 10) { $0.contains("there is no shared file 7") } != nil)
        #expect(bob.waitForLine(timeout: 10) { $0.contains("cannot send /nonexistent/file") } != nil)
        alice.closeInput()
        #expect(alice.finish(timeout: 30).status == 0)
    }
}

extension LineModeFileTests {
    /// A fresh folder with an empty `out` folder in it.
    static func folder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-files-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder + "/out", withIntermediateDirectories: true)
        return folder
    }

    /// Writes 150 MiB of random bytes (a random MiB, varied per MiB) to `path` and returns them.
    static func bigFile(at path: String) throws -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        let block = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var bytes: [UInt8] = []
        for index in 0..<150 { bytes += block.map { $0 &+ UInt8(truncatingIfNeeded: index) } }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return bytes
    }

    /// The server is killed (SIGKILL) mid-upload and restarts on the same port and `--db`: the
    /// client reconnects and resumes (corrected to what the server's disk holds), the file is
    /// stored whole, and another client downloads it intact.
    @Test func uploadResumesAfterAServerCrash() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bytes = try Self.bigFile(at: folder + "/big.bin")
        let port = ReconnectTests.freePort()
        let database = temporaryDatabasePath()
        let arguments = ["--port", "\(port)", "--db", database, "--max-file-size", "\(200 << 20)"]
        var server = try ChatServerProcess(arguments)
        let alice = try LineModeTests.client(port: port, nick: "alice")
        #expect(alice.waitForLine(timeout: 10) { $0.contains("alice joined") } != nil)
        alice.write("/send \(folder)/big.bin\n")
        #expect(alice.waitForLine(timeout: 60) { $0.contains("[transfer 1] big.bin") && $0.contains("MiB/150.0 MiB") } != nil)
        server.process.signal(SIGKILL)
        _ = server.process.finish(timeout: 5)
        server = try ChatServerProcess(arguments)
        defer { server.stop() }
        #expect(alice.waitForLine(timeout: 60) { $0.contains("[transfer 1] resuming big.bin from") } != nil)
        #expect(alice.waitForLine(timeout: 120) { $0.contains("[transfer 1] sent big.bin") } != nil)
        let bob = try LineModeTests.client(port: port, nick: "bob")
        #expect(bob.waitForLine(timeout: 30) { $0.contains("* alice shared big.bin (150.0 MiB) [file 1] (history)") } != nil)
        bob.write("/get 1 \(folder)/out\n")
        #expect(bob.waitForLine(timeout: 120) { $0.contains("saved \(folder)/out/big.bin (SHA-256 checked)") } != nil)
        #expect(FileManager.default.contents(atPath: folder + "/out/big.bin") == Data(bytes))
    }

    /// The `--json` objects of a transfer (`"type":"transfer"`), parsed: `started`, `hashed`, `progress`,
    /// `finished` (an upload's `file` and `seq`), `failed` with a `reason`, `cancelled`, each with
    /// the transfer's number, direction, name, size, done, sha256, id and path, on standard output.
    @Test func jsonEventsForTransfers() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<3_000_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/data.bin"))
        // Beyond the server's 100 MiB: refused before the body. Sparse, so nothing is written.
        let huge = open(folder + "/huge.bin", O_WRONLY | O_CREAT, 0o600)
        #expect(ftruncate(huge, 101 << 20) == 0)
        close(huge)
        let server = try ChatServerProcess()
        defer { server.stop() }
        let alice = try LineModeTests.client(port: server.port, nick: "alice", ["--json"])
        let bob = try LineModeTests.client(port: server.port, nick: "bob", ["--json"])
        #expect(bob.waitForLine(timeout: 10) { $0.contains("\"type\":\"welcome\"") } != nil)
        alice.write("/send \(folder)/data.bin\n")
        let event: (ChildProcess, String, Int) -> [String: Any]? = { client, name, number in
            client.waitForLine(timeout: 60) { $0.contains("\"type\":\"transfer\"") && $0.contains("\"event\":\"\(name)\"")
                && $0.contains("\"transfer\":\(number),") }
                .flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
        let sha256 = try Self.sha256(folder + "/data.bin")
        let started = try #require(event(alice, "started", 1))
        #expect(started["direction"] as? String == "upload" && started["size"] as? Int == 3_000_000 && started["room"] as? String == "lobby")
        #expect(started["path"] as? String == folder + "/data.bin" && started["name"] as? String == "data.bin")
        #expect(started["sha256"] as? String == "" && (started["id"] as? String)?.isEmpty == false)
        let hashed = try #require(event(alice, "hashed", 1))
        #expect(hashed["sha256"] as? String == sha256 && hashed["id"] as? String == started["id"] as? String)
        let progress = try #require(event(alice, "progress", 1))
        #expect((progress["done"] as? Int ?? 0) > 0 && progress["rate"] is Int)
        let sent = try #require(event(alice, "finished", 1))
        #expect(sent["done"] as? Int == 3_000_000 && (sent["file"] as? String)?.count == 32 && sent["seq"] is Int)

        #expect(bob.waitForLine(timeout: 30) { $0.contains("\"type\":\"file\"") } != nil)
        bob.write("/get 1 \(folder)/out\n")
        let getting = try #require(event(bob, "started", 1))
        #expect(getting["direction"] as? String == "download" && getting["file"] as? String == sent["file"] as? String)
        #expect(getting["path"] as? String == folder + "/out/data.bin")
        let saved = try #require(event(bob, "finished", 1))
        #expect(saved["done"] as? Int == 3_000_000 && saved["sha256"] as? String == sha256)
        #expect(FileManager.default.contents(atPath: folder + "/out/data.bin") == Data(bytes))

        alice.write("/send \(folder)/huge.bin\n")
        let refused = try #require(event(alice, "failed", 2))
        #expect((refused["reason"] as? String)?.hasPrefix("too-large") == true && refused["name"] as? String == "huge.bin")
        alice.write("/send bob \(folder)/data.bin\n/cancel 3\n")
        let cancelled = try #require(event(alice, "cancelled", 3))
        #expect(cancelled["to"] as? String == "bob" && cancelled["room"] == nil)
        #expect(alice.errorOutput.filter { $0.contains("[transfer") }.isEmpty)
        alice.closeInput()
        #expect(alice.finish(timeout: 30).status == 1)
    }

    /// A file is hashed on a worker thread: while a 16 GiB file (sparse) is hashed, a message
    /// typed after `/send` is sent and acknowledged (its ack comes before any `hashed` event on
    /// the one ordered output), the other client gets it, and `/cancel` stops the hash.
    @Test func hashingKeepsTheLoopAnswering() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let huge = open(folder + "/huge.bin", O_WRONLY | O_CREAT, 0o600)
        #expect(ftruncate(huge, 16 << 30) == 0)
        close(huge)
        let server = try ChatServerProcess()
        defer { server.stop() }
        let bob = try LineModeTests.client(port: server.port, nick: "bob")
        #expect(bob.waitForLine(timeout: 10) { $0.contains("bob joined") } != nil)
        let alice = try LineModeTests.client(port: server.port, nick: "alice", ["--json"])
        alice.write("/send \(folder)/huge.bin\nhello while hashing\n")
        #expect(bob.waitForLine(timeout: 10) { untimed($0) == "#lobby <alice> hello while hashing" } != nil)
        #expect(alice.waitForLine(timeout: 10) { $0.contains("\"type\":\"ack\"") } != nil)
        alice.write("/cancel 1\n")
        #expect(alice.waitForLine(timeout: 10) { $0.contains("\"event\":\"cancelled\"") && $0.contains("\"sha256\":\"\"") } != nil)
        let lines = alice.outputLines
        let started = lines.firstIndex { $0.contains("\"event\":\"started\"") && $0.contains("\"name\":\"huge.bin\"") }
        let acked = lines.firstIndex { $0.contains("\"type\":\"ack\"") }
        #expect(started != nil && acked != nil && started! < acked!)
        #expect(!lines.contains { $0.contains("\"event\":\"hashed\"") })
        alice.closeInput()
        #expect(alice.finish(timeout: 30).status == 0)
    }

    /// The SHA-256 of a file, as lowercase hex (sha256sum).
    static func sha256(_ path: String) throws -> String {
        let run = try ChildProcess("/usr/bin/sha256sum", [path])
        return String(run.finish(timeout: 30).output.prefix(64))
    }
}

extension LineModeFileTests {
    /// Issue 24, defect 5: a shared file and its download have one number (`/get 2` starts
    /// transfer 2, `/cancel 2` stops it), and an upload's number is never a file's.
    @Test func filesAndTransfersShareTheirNumbers() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(repeating: 7, count: 1000).write(to: URL(fileURLWithPath: folder + "/one.bin"))
        try Data(repeating: 8, count: 2000).write(to: URL(fileURLWithPath: folder + "/two.bin"))
        try Data(repeating: 9, count: 3000).write(to: URL(fileURLWithPath: folder + "/mine.bin"))
        let server = try ChatServerProcess()
        defer { server.stop() }
        let bob = try LineModeTests.client(port: server.port, nick: "bob")
        #expect(bob.waitForLine(timeout: 10) { $0.contains("bob joined") } != nil)
        let alice = try LineModeTests.client(port: server.port, nick: "alice")
        alice.write("/send \(folder)/one.bin\n/send \(folder)/two.bin\n")
        #expect(bob.waitForLine(timeout: 30) { $0.contains("shared two.bin") && $0.contains("[file 2]") } != nil, "\(bob.outputLines)")
        bob.write("/send \(folder)/mine.bin\n")
        #expect(bob.waitForLine(timeout: 30) { $0.contains("[transfer 3] sent mine.bin") } != nil, "\(bob.errorOutput)")
        bob.write("/get 2 \(folder)/out\n")
        #expect(bob.waitForLine(timeout: 30) { $0.contains("saved \(folder)/out/two.bin") }.map { $0.contains("[transfer 2]") } == true,
                "\(bob.errorOutput)")
        bob.write("/cancel 2\n")
        #expect(bob.waitForLine(timeout: 10) { $0.contains("there is no transfer 2") } != nil, "\(bob.errorOutput)")
        alice.closeInput()
        _ = alice.finish(timeout: 30)
        bob.closeInput()
        _ = bob.finish(timeout: 30)
    }
}

extension LineModeFileTests {
    /// Issue 24, defect 8: the memory an upload used is given back once it is done (17.6 MB grew to
    /// 62.6 MB after one 57 MiB file, and stayed). Resident memory measured after joining, and
    /// again once the upload is acknowledged; the client keeps running.
    @Test func memoryIsGivenBackAfterAnUpload() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var generator = SystemRandomNumberGenerator()
        let block = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var bytes: [UInt8] = []
        for index in 0..<57 { bytes += block.map { $0 &+ UInt8(truncatingIfNeeded: index) } }
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/big.bin"))
        bytes = []
        let server = try ChatServerProcess(["--max-file-size", "\(100 << 20)"])
        defer { server.stop() }
        let alice = try LineModeTests.client(port: server.port, nick: "alice")
        defer { alice.terminate() }
        #expect(alice.waitForEvent("#lobby * alice joined"))
        alice.write("/who\n")
        #expect(alice.waitForLine(timeout: 10) { untimed($0).hasPrefix("#lobby members:") } != nil)
        let before = try #require(alice.residentMemoryBytes())
        alice.write("/send \(folder)/big.bin\n")
        #expect(alice.waitForLine(timeout: 120) { $0.contains("[transfer 1] sent big.bin") } != nil, "\(alice.errorOutput.suffix(5))")
        // Given back once the transfer's stream has closed, which follows the ack by a round trip:
        // waited for, up to 10 s.
        let bound = TestMemory.scaled(12 << 20)
        var after = try #require(alice.residentMemoryBytes())
        let deadline = Date().addingTimeInterval(TestTime.scaled(10))
        while after - before >= bound, Date() < deadline {
            usleep(100_000)
            after = try #require(alice.residentMemoryBytes())
        }
        print("chat-client resident memory: \(before >> 10) KiB before a 57 MiB upload, \(after >> 10) KiB after")
        #expect(after - before < bound, "\(before >> 10) KiB before, \(after >> 10) KiB after")
    }
}

extension LineModeFileTests {
    /// Issue 24, defect 4: a file whose path has spaces is sent to the room, in quotes, with
    /// backslashes, or typed as it is (the first word was taken as a nick).
    @Test func pathsWithSpaces() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(repeating: 1, count: 100).write(to: URL(fileURLWithPath: folder + "/my notes.txt"))
        let server = try ChatServerProcess()
        defer { server.stop() }
        let bob = try LineModeTests.client(port: server.port, nick: "bob")
        defer { bob.terminate() }
        #expect(bob.waitForEvent("#lobby * bob joined"))
        let alice = try LineModeTests.client(port: server.port, nick: "alice")
        alice.write("/send \"\(folder)/my notes.txt\"\n/send \(folder.replacingOccurrences(of: " ", with: "\\ "))/my\\ notes.txt\n"
                    + "/send \(folder)/my notes.txt\n")
        for number in 1...3 {
            #expect(alice.waitForLine(timeout: 30) { $0.contains("[transfer \(number)] sent my notes.txt") } != nil, "\(alice.errorOutput)")
        }
        #expect(bob.waitForLine(timeout: 30) { $0.contains("* alice shared my notes.txt (100 B) [file 3]") } != nil, "\(bob.outputLines)")
        alice.closeInput()
        #expect(alice.finish(timeout: 30).status == 0)
    }
}
