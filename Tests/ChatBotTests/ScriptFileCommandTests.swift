@testable import ChatBot
import Foundation
import Testing
import TestSupport

/// The bot script's file commands (PROTOCOL.md section 9): `upload`, `download`, `expect file`.
@Suite("chat-bot file commands", .serialized)
struct ScriptFileCommandTests {
    /// `upload PATH`, `upload random SIZE` with k/M/G, `to NICK`, `download [FOLDER]`, `expect file`.
    @Test func fileCommandsParse() throws {
        let script = try ScriptParser.parse("""
            bot alice {
                upload /tmp/notes.txt
                upload random 5M to bob
                upload random 1000
                download
                download /tmp/in
                expect file from bob "notes" within 10s
            }
            """)
        #expect(script.bots[0].commands.map(\.action) == [
            .upload(path: "/tmp/notes.txt", randomBytes: nil, to: nil),
            .upload(path: nil, randomBytes: 5 << 20, to: "bob"),
            .upload(path: nil, randomBytes: 1000, to: nil),
            .download(folder: nil),
            .download(folder: "/tmp/in"),
            .expect(ScriptExpectation(kind: .file, from: "bob", pattern: .substring("notes"), timeoutMilliseconds: 10_000)),
        ])
        #expect(ScriptParser.byteCount("64k") == 65536 && ScriptParser.byteCount("1G") == 1 << 30 && ScriptParser.byteCount("-1") == nil)
        #expect(throws: ScriptError.self) { try ScriptParser.parse("bot a {\n upload\n}") }
        #expect(throws: ScriptError.self) { try ScriptParser.parse("bot a {\n upload random lots\n}") }
        #expect(throws: ScriptError.self) { try ScriptParser.parse("bot a {\n download a b\n}") }
    }

    /// End to end: alice uploads 3 MiB of random bytes, bob expects the file and downloads it into
    /// a folder (its SHA-256 checked by the bot); the run passes and the file is there, whole;
    /// the upload's size, time and rate are on stderr.
    @Test func scriptedUploadAndDownload() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-bot-in-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("files-\(UUID().uuidString).bot").path
        try FileBotScripts.uploadThenDownload(size: "3M", into: folder).write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let bot = try ChildProcess(BuildPaths.product("chat-bot"), ["script", path, "--port", String(server.port), "--ca", TestCertificates.ca])
        let finished = bot.finish(timeout: 60)
        #expect(finished.status == 0, "\(finished.errors)")
        let saved = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(saved.count == 1 && !saved[0].hasSuffix(".part"), "\(saved)")
        let size = (try? FileManager.default.attributesOfItem(atPath: folder + "/" + (saved.first ?? ""))[.size] as? Int) ?? 0
        #expect(size == 3 << 20)
        // The upload's figure, what scripts/bench-files.sh reads: size, seconds and rate.
        let uploaded = finished.errors.split(separator: "\n").first { $0.contains(": uploaded ") }.map(String.init) ?? ""
        #expect(uploaded.contains(" \(3 << 20) bytes in ") && uploaded.hasSuffix(" MiB/s"), "\(finished.errors)")
    }
}

extension ScriptFileCommandTests {
    /// `upload PATH` twice in a `repeat`: the second upload reuses the first one's SHA-256 (the
    /// file is unchanged), and the server, which checks every byte against it, acknowledges both.
    @Test func repeatedUploadOfOneFile() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("repeat-\(UUID().uuidString).bin").path
        #expect(FileManager.default.createFile(atPath: data, contents: Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7919) })))
        defer { try? FileManager.default.removeItem(atPath: data) }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("repeat-\(UUID().uuidString).bot").path
        try "bot ada lobby {\n    repeat 2 {\n        upload \(data)\n    }\n}\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let bot = try ChildProcess(BuildPaths.product("chat-bot"), ["script", path, "--port", String(server.port), "--ca", TestCertificates.ca])
        let finished = bot.finish(timeout: 60)
        #expect(finished.status == 0, "\(finished.errors)")
        #expect(finished.errors.split(separator: "\n").filter { $0.contains(": uploaded ") }.count == 2, "\(finished.errors)")
    }

    /// `chat-bot load --file-size 2M --file-rate 2`: uploads start during the run, the clients
    /// taking turns, all complete, chat loses nothing, and the report gives their throughput.
    @Test func loadRunWithFileUploads() throws {
        let server = try ChatServerProcess(["--flood-burst", "1000", "--flood-rate", "1000"])
        defer { server.stop() }
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("chat-bot-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: json) }
        let bot = try ChildProcess(BuildPaths.product("chat-bot"), [
            "load", "--port", String(server.port), "--ca", TestCertificates.ca, "--clients", "6", "--rate", "30",
            "--duration", "2", "--warmup", "0.5", "--file-size", "2M", "--file-rate", "2", "--drain", "60", "--json", json,
        ])
        let finished = bot.finish(timeout: 60)
        #expect(finished.status == 0, "\(finished.output)\n\(finished.errors)")
        #expect(finished.output.contains("| file uploads started / completed / failed |"), "\(finished.output)")
        let report = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        let files = try #require(report["files"] as? [String: Any])
        let started = files["started"] as? Int ?? 0
        #expect(started >= 4 && files["completed"] as? Int == started && files["failed"] as? Int == 0, "\(files)")
        #expect(files["bytes"] as? Int == started * (2 << 20))
        #expect((files["throughput_mib_s"] as? Double ?? 0) > 0)
        let deliveries = try #require(report["deliveries"] as? [String: Any])
        #expect(deliveries["lost"] as? Int == 0)
    }
}
