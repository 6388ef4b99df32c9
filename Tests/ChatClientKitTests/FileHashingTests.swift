import Foundation
import QuicIO
import Testing

@testable import ChatClientKit

/// Uploads are hashed on the worker thread and the result comes back through the loop, on a
/// real event loop with real files (no network: the transfer waits for a connection).
struct FileHashingTests {
    /// Runs `loop` until `done` says so, or 20 s.
    static func run(_ loop: EventLoop, until done: @escaping () -> Bool) {
        let deadline = MonotonicTime.now() + .seconds(20)
        func check() {
            if done() || MonotonicTime.now() >= deadline { return loop.stop() }
            loop.schedule(at: .now() + .milliseconds(5)) { check() }
        }
        check()
        loop.run()
    }

    /// `upload` returns at once with the transfer listed and no digest; the digest comes later
    /// (`hashed`), equal to the file's SHA-256, and only then does the transfer count as unfinished
    /// for the session's state.
    @Test func theDigestComesBackThroughTheLoop() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-hash-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 * 7) }).write(to: URL(fileURLWithPath: path))
        let loop = try EventLoop()
        let files = FileTransfers(loop: loop)
        var hashed: FileTransfer?
        var kept: [[FileTransfer]] = []
        files.onEvent = { if case .hashed(let transfer) = $0 { hashed = transfer } }
        files.onUnfinishedChanged = { kept.append($0) }
        let number = try files.upload(path, room: "lobby", to: nil)
        #expect(files.transfers[number]?.sha256 == "" && kept.isEmpty)
        Self.run(loop) { hashed != nil }
        #expect(hashed?.sha256 == (try FileTransfers.sha256(ofFile: path)))
        #expect(files.transfers[number]?.sha256 == hashed?.sha256 && kept.last?.map(\.number) == [number])
        #expect(files.hashing.isEmpty)
    }

    /// A cancelled hash stops early, its file is closed when the worker's answer is in, and no
    /// `hashed` ever follows.
    @Test func aCancelledHashIsDropped() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-hash-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 64 << 30)
        try handle.close()
        let loop = try EventLoop()
        let files = FileTransfers(loop: loop)
        var events: [String] = []
        files.onEvent = { event in
            switch event {
            case .hashed: events.append("hashed")
            case .cancelled: events.append("cancelled")
            default: events.append("other")
            }
        }
        let number = try files.upload(path, room: "lobby", to: nil)
        #expect(files.cancel(number) && files.transfers.isEmpty && events == ["cancelled"])
        // Hashing 64 GiB would outlast the 20 s `run` waits.
        Self.run(loop) { files.hashing.isEmpty }
        #expect(files.hashing.isEmpty && events == ["cancelled"])
    }
}
