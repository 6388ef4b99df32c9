import ChatProtocol
import Digest
import Foundation
import QuicIO
import TestSupport
import Testing

@testable import ChatClientKit

/// Issue 24, defect 18: the client as the victim of a malicious server (``HostileServer``).
@Suite("chat-client against a malicious server", .serialized)
struct MaliciousServerTests {
    struct Outcome: Sendable {
        var event = "none"
        var done: Int64 = -1
        var files: [String] = []
    }

    /// A download of a file announced as 10 bytes whose server sends 20 MiB: the client stops at
    /// the 11th byte (it used to write everything and only compare the hash at the end) and
    /// keeps nothing.
    @Test func aDownloadLongerThanAnnouncedIsStoppedAtOnce() async throws {
        let outcome = try await onDedicatedThread { try Self.download(announced: 10, headerSize: 10, sent: 20 << 20) }
        #expect(outcome.event.hasPrefix("failed: the server sent more than the file's 10 bytes"), "\(outcome.event)")
        #expect(outcome.done <= 10, "\(outcome.done) bytes written")
        #expect(outcome.files.isEmpty, "\(outcome.files)")
    }

    /// A download answer whose header gives another size than the announcement is refused before
    /// a byte is written.
    @Test func aHeaderWithAnotherSizeIsRefused() async throws {
        let outcome = try await onDedicatedThread { try Self.download(announced: 10, headerSize: 1 << 30, sent: 1 << 20) }
        #expect(outcome.event.hasPrefix("failed: the server's answer gives"), "\(outcome.event)")
        #expect(outcome.done <= 0 && outcome.files.isEmpty)
    }

    /// A shared file whose name hides its extension behind U+202E (RIGHT-TO-LEFT OVERRIDE): it is
    /// saved under a name that reads as it is, the override made `_`.
    @Test func aNameWithABidiOverrideIsSavedVisibly() async throws {
        let outcome = try await onDedicatedThread { try Self.download(name: "invoice\u{202E}fdp.exe", announced: 10, headerSize: 10, sent: 10) }
        #expect(outcome.event == "finished")
        #expect(outcome.files == ["invoice_fdp.exe"], "\(outcome.files)")
    }

    /// Runs one download from a hostile server; returns how it ended.
    static func download(name: String = "ten.txt", announced: Int64, headerSize: Int64, sent: Int) throws -> Outcome {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-hostile-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let loop = try EventLoop()
        let server = try HostileServer(loop: loop)
        let digest = SHA256.hex(of: [UInt8](repeating: 0x41, count: Int(announced)))
        server.afterWelcome = [.fileAnnouncement(file: "FID1", name: name, size: announced, sha256: digest, sender: "mallory", id: nil,
                                                 room: "lobby", to: nil, seq: 2, ts: 1, account: nil)]
        server.downloadHeader = .fileHeader(file: "FID1", name: name, size: headerSize, sha256: digest, offset: 0)
        server.downloadBody = sent
        let pool = try ChatSessionPool(driver: QuicDriver(loop: loop, endpoint: try QuicEndpoint(now: .now())), server: server.address,
                                       configuration: HostileServer.clientConfiguration)
        let session = ResilientSession(pool: pool, loop: loop, nick: "victim", rooms: ["lobby"])
        var outcome = Outcome()
        session.onMessage = { [unowned session] message, _ in
            if message.messageType == .file { _ = try? session.files.download(message, into: folder) }
        }
        session.files.onEvent = { event in
            switch event {
            case .failed(let transfer, let reason):
                outcome.event = "failed: \(reason)"
                outcome.done = transfer.done
                loop.stop()
            case .finished(let transfer, _):
                outcome.event = "finished"
                outcome.done = transfer.done
                loop.stop()
            default:
                break
            }
        }
        try session.start()
        let timer = loop.schedule(at: .now() + .seconds(30)) { loop.stop() }
        loop.run()
        loop.cancel(timer)
        outcome.files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        session.quit()
        // The handlers hold the loop and the session: let go of them, or LeakSanitizer finds the
        // whole client (its socket's buffers) left behind by every test.
        session.onMessage = { _, _ in }
        session.files.onEvent = { _ in }
        return outcome
    }
}
