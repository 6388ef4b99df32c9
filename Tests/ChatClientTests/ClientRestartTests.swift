import Foundation
import Glibc
import TestSupport
import Testing

/// chat-client killed (SIGKILL) mid-transfer and started again, with the real binaries: the
/// session slot under `$XDG_STATE_HOME/qchat/sessions/` gives the new process the same peer id,
/// so the server's partial upload is resumed from its offset and a download goes on from its
/// `.part` file; a second client running at the same time takes another slot and replaces nobody.
@Suite("chat-client restarted after a kill", .serialized)
struct ClientRestartTests {
    static let size = 150 << 20

    /// A server with a metrics endpoint (no page cache) that takes 150 MiB files.
    static func server() throws -> (ChatServerProcess, metrics: UInt16) {
        let server = try ChatServerProcess(["--max-file-size", "\(200 << 20)", "--metrics", "127.0.0.1:0", "--metrics-cache", "0"])
        return (server, try #require(server.metricsPort))
    }

    /// One sample of the server's metrics page (0 when the series is missing).
    static func metric(_ port: UInt16, _ series: String) -> Double {
        let page = HTTPProbe.get(port: port, until: 200)?.body ?? ""
        for line in page.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1)) ?? 0
        }
        return 0
    }

    /// The MiB done in a progress line `[transfer N] NAME 31.2 MiB/150.0 MiB ...`, nil for other lines.
    static func mebibytesDone(_ line: String) -> Double? {
        guard let range = line.range(of: " MiB/150.0 MiB") else { return nil }
        return Double(line[..<range.lowerBound].split(separator: " ").last ?? "")
    }

    /// Alice sends 150 MiB and is killed mid-upload; started again in the same home she is the same
    /// peer (her ghost is REPLACED, she keeps her nick), takes the upload up from the state she
    /// left, and the server goes on from the bytes it holds: the bytes it wrote in all stay below
    /// the file's size plus what it had before the kill (a restart from 0 would pass that). Bob
    /// downloads the file intact.
    @Test func uploadResumesAfterTheClientIsKilled() throws {
        let folder = try LineModeFileTests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bytes = try LineModeFileTests.bigFile(at: folder + "/big.bin")
        let (server, metrics) = try Self.server()
        defer { server.stop() }
        let home = try ClientHome()
        defer { home.remove() }
        let alice = try home.lineClient(port: server.port, nick: "alice")
        #expect(alice.waitForLine(timeout: 10) { $0.contains("alice joined") } != nil)
        alice.write("/send \(folder)/big.bin\n")
        #expect(alice.waitForLine(timeout: 60) { (Self.mebibytesDone($0) ?? 0) >= 10 } != nil)
        alice.signal(SIGKILL)
        _ = alice.finish(timeout: 5)
        // What the server wrote before the kill: at least a MiB (more may still be on its way to
        // the disk), far more than a resume's first stream sends before its `bad-offset`.
        let deadline = Date().addingTimeInterval(10)
        var before = 0.0
        while before < Double(1 << 20) && Date() < deadline {
            before = Self.metric(metrics, #"qchat_file_bytes_total{direction="upload"}"#)
        }
        #expect(before >= Double(1 << 20) && before < Double(Self.size))
        #expect(Self.metric(metrics, #"qchat_file_uploads_total{outcome="stored"}"#) == 0)

        let again = try home.lineClient(port: server.port, nick: "alice")
        #expect(again.waitForLine(timeout: 10) { $0.contains("[transfer 1] sending big.bin again: left unfinished by the last run") } != nil)
        #expect(again.waitForLine(timeout: 10) { untimed($0) == "#lobby * alice joined" } != nil)
        #expect(server.process.waitForLine(timeout: 10) { $0.contains("close") && $0.contains("REPLACED") } != nil)
        let resumed = again.waitForLine(timeout: 60) { $0.contains("[transfer 1] resuming big.bin from") }
        #expect(resumed != nil && resumed?.contains("from 0 B") == false)
        #expect(again.waitForLine(timeout: 120) { $0.contains("[transfer 1] sent big.bin (150.0 MiB)") } != nil)
        let total = Self.metric(metrics, #"qchat_file_bytes_total{direction="upload"}"#)
        #expect(total >= Double(Self.size))
        #expect(total - Double(Self.size) < before)
        #expect(Self.metric(metrics, #"qchat_file_uploads_total{outcome="stored"}"#) == 1)
        again.closeInput()
        #expect(again.finish(timeout: 30).status == 0)
        #expect(try String(contentsOfFile: home.stateDirectory + "/qchat/sessions/localhost-\(server.port)/alice/slot-0.state", encoding: .utf8)
            .split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.hasPrefix("peer ") }.isEmpty)

        let bob = try LineModeTests.client(port: server.port, nick: "bob")
        #expect(bob.waitForLine(timeout: 30) { $0.contains("* alice shared big.bin (150.0 MiB) [file 1] (history)") } != nil)
        bob.write("/get 1 \(folder)/out\n")
        #expect(bob.waitForLine(timeout: 120) { $0.contains("saved \(folder)/out/big.bin (SHA-256 checked)") } != nil)
        #expect(FileManager.default.contents(atPath: folder + "/out/big.bin") == Data(bytes))
    }

    /// Bob is killed mid-download; started again he goes on from what his `.part` file holds: the
    /// server sends less than the file's size plus the `.part` (a download from 0 would), and the
    /// file is saved intact.
    @Test func downloadResumesFromItsPartAfterTheClientIsKilled() throws {
        let folder = try LineModeFileTests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bytes = try LineModeFileTests.bigFile(at: folder + "/big.bin")
        let (server, metrics) = try Self.server()
        defer { server.stop() }
        let alice = try LineModeTests.client(port: server.port, nick: "alice")
        alice.write("/send \(folder)/big.bin\n")
        #expect(alice.waitForLine(timeout: 120) { $0.contains("[transfer 1] sent big.bin") } != nil)
        let home = try ClientHome()
        defer { home.remove() }
        let bob = try home.lineClient(port: server.port, nick: "bob")
        #expect(bob.waitForLine(timeout: 30) { $0.contains("* alice shared big.bin (150.0 MiB) [file 1]") } != nil)
        bob.write("/get 1 \(folder)/out\n")
        #expect(bob.waitForLine(timeout: 60) { (Self.mebibytesDone($0) ?? 0) >= 30 } != nil)
        bob.signal(SIGKILL)
        _ = bob.finish(timeout: 5)
        let part = try #require(try FileManager.default.attributesOfItem(atPath: folder + "/out/big.bin.part")[.size] as? Int)
        #expect(part >= 30 << 20 && part < Self.size)

        let again = try home.lineClient(port: server.port, nick: "bob")
        #expect(again.waitForLine(timeout: 10) { $0.contains("[transfer 1] getting big.bin again: left unfinished by the last run") } != nil)
        #expect(again.waitForLine(timeout: 30) { $0.contains("[transfer 1] resuming big.bin from") } != nil)
        #expect(again.waitForLine(timeout: 120) { $0.contains("saved \(folder)/out/big.bin (SHA-256 checked)") } != nil)
        #expect(FileManager.default.contents(atPath: folder + "/out/big.bin") == Data(bytes))
        #expect(!FileManager.default.fileExists(atPath: folder + "/out/big.bin.part"))
        #expect(Self.metric(metrics, "qchat_file_downloads_total") == 2)
        let sent = Self.metric(metrics, #"qchat_file_bytes_total{direction="download"}"#)
        #expect(sent - Double(Self.size) < Double(part))
        again.closeInput()
        #expect(again.finish(timeout: 30).status == 0)
    }

    /// Two clients with the same nick and home at once take two slots: two peer ids, nobody
    /// REPLACED, both chatting; the second is told the nick is taken (`alice_2`).
    @Test func aSecondClientTakesAnotherSlot() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let home = try ClientHome()
        defer { home.remove() }
        let first = try home.lineClient(port: server.port, nick: "alice")
        #expect(first.waitForLine(timeout: 10) { untimed($0) == "#lobby * alice joined" } != nil)
        let second = try home.lineClient(port: server.port, nick: "alice")
        #expect(second.waitForLine(timeout: 10) { untimed($0) == "#lobby * alice_2 joined" } != nil)
        second.write("from the second\n")
        #expect(first.waitForLine(timeout: 10) { untimed($0) == "#lobby <alice_2> from the second" } != nil)
        first.write("from the first\n")
        #expect(second.waitForLine(timeout: 10) { untimed($0) == "#lobby <alice> from the first" } != nil)
        let directory = home.stateDirectory + "/qchat/sessions/localhost-\(server.port)/alice"
        let peers = try (0..<2).map { index in
            try String(contentsOfFile: directory + "/slot-\(index).state", encoding: .utf8).split(separator: "\n").first { $0.hasPrefix("peer ") }
        }
        #expect(peers[0] != nil && peers[1] != nil && peers[0] != peers[1])
        first.closeInput()
        second.closeInput()
        #expect(first.finish(timeout: 10).status == 0)
        #expect(second.finish(timeout: 10).status == 0)
        #expect(server.process.lineCount { $0.contains("REPLACED") } == 0)
    }
}
