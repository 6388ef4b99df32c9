import ChatClientKit
import ChatProtocol
import Digest
import Foundation
import Glibc
import QuicEngine
import Testing
import TestSupport

/// End to end, files at size (PROTOCOL.md section 9): a 200 MiB file goes up and comes down
/// intact while the server's memory stays flat, and a full disk refuses an upload with an error
/// while chat loses nothing.
@Suite("chat-server file volume", .serialized)
struct FileVolumeTests {
    struct Volume: Sendable {
        var ack: ChatMessage?
        var downloadedCount = 0
        var downloadedHash: String?
        var residentBefore = 0
        var residentPeak = 0
        var problems: [String] = []
    }

    /// 200 MiB up and down, checksums compared; the server's RSS never grows by more than a
    /// quarter of the file (what it holds is bounded by the stream windows, not the file).
    @Test func twoHundredMebibytes() async throws {
        let size = 200 << 20
        let body = FileStreamPump.Body(repeating: FileTransferTests.bytes(1 << 20, seed: 11), count: size)
        let digest = body.sha256
        let server = try ChatServerProcess(["--max-file-size", "\(size)"])
        defer { server.stop() }
        let port = server.port
        let result = try await onDedicatedThread { () -> Volume in
            var volume = Volume()
            let world = try ChatTestWorld(port: port)
            let alice = try FileTransferTests.joined(world, "alice")
            let bob = try FileTransferTests.joined(world, "bob")
            bob.hashesFileBodies = true
            volume.residentBefore = server.process.residentMemoryBytes() ?? 0
            let pump = FileStreamPump()
            let upload = try pump.send(.upload(id: "huge", room: "lobby", name: "huge.bin", size: Int64(size), sha256: digest),
                                       body: body, on: alice)
            let sample = { volume.residentPeak = max(volume.residentPeak, server.process.residentMemoryBytes() ?? 0) }
            guard world.run(seconds: 600, until: { sample(); return alice.finished.contains(upload) }) else {
                volume.problems.append("upload did not finish")
                return volume
            }
            volume.ack = alice.messages(on: upload).first
            guard let fileID = volume.ack?.file else { return volume }
            let download = try pump.send(.download(file: fileID), on: bob)
            guard world.run(seconds: 600, until: { sample(); return bob.finished.contains(download) }) else {
                volume.problems.append("download did not finish")
                return volume
            }
            volume.downloadedCount = bob.bodyCounts[download] ?? 0
            volume.downloadedHash = bob.bodyHashes[download]?.finishHex()
            return volume
        }
        #expect(result.problems.isEmpty)
        #expect(result.ack?.type == "ack")
        #expect(result.downloadedCount == size)
        #expect(result.downloadedHash == digest)
        #expect(result.residentBefore > 0)
        #expect(result.residentPeak - result.residentBefore < size / 4,
                "RSS grew from \(result.residentBefore >> 20) MiB to \(result.residentPeak >> 20) MiB")
    }

    struct DiskFull: Sendable {
        var uploadAnswer: ChatMessage?
        var chatDelivered = false
        var smallAck: ChatMessage?
        var replayed: [String] = []
    }

    /// `--files` on a 1 MiB tmpfs (the suite runs as root) and no `--disk-reserve` (the disk fills
    /// as something else would fill it): a 4 MiB upload fails with `unavailable` on its stream;
    /// chat sent meanwhile is delivered and stored; a small upload works after.
    @Test(.enabled(if: TmpfsMount.isPossible, "mounting a tmpfs needs root"))
    func fullDiskLosesNoChat() async throws {
        let disk = try TmpfsMount(size: "1m")
        defer { disk.unmount() }
        let mountPoint = disk.path
        let server = try ChatServerProcess(["--files", mountPoint + "/files", "--db", temporaryDatabasePath(), "--max-file-size", "8388608",
                                            "--disk-reserve", "0"])
        defer { server.stop() }
        let port = server.port
        let result = try await onDedicatedThread { () -> DiskFull in
            var result = DiskFull()
            let world = try ChatTestWorld(port: port)
            let alice = try FileTransferTests.joined(world, "alice")
            let bob = try FileTransferTests.joined(world, "bob")
            let pump = FileStreamPump()
            let big = FileStreamPump.Body(repeating: FileTransferTests.bytes(65536, seed: 5), count: 4 << 20)
            let upload = try pump.send(.upload(id: "big", room: "lobby", name: "big.bin", size: Int64(big.count), sha256: big.sha256),
                                       body: big, on: alice)
            bob.write(ChatMessage.msg(room: "lobby", text: "during the full disk", id: "m-1").encodedLine(), to: 0)
            _ = world.run(seconds: 60) { alice.finished.contains(upload) && alice.has(type: "msg") }
            result.uploadAnswer = alice.messages(on: upload).first
            result.chatDelivered = alice.has(type: "msg") { $0.text == "during the full disk" }
            let small = FileTransferTests.bytes(1000, seed: 6)
            let retry = try pump.send(.upload(id: "small", room: "lobby", name: "s.bin", size: 1000, sha256: SHA256.hex(of: small)),
                                      body: small, on: alice)
            _ = world.run(seconds: 30) { alice.finished.contains(retry) }
            result.smallAck = alice.messages(on: retry).first
            let carol = try FileTransferTests.joined(world, "carol")
            result.replayed = carol.messages(on: 0, type: "msg").map(\.text)
            return result
        }
        #expect(result.uploadAnswer?.type == "error" && result.uploadAnswer?.code == "unavailable")
        #expect(result.chatDelivered)
        #expect(result.smallAck?.type == "ack")
        #expect(result.replayed.contains("during the full disk"))
    }
}
