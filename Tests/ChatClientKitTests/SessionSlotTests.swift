import ChatProtocol
import Foundation
import QuicEngine
import Testing

@testable import ChatClientKit

/// The client's kept session (``SessionSlot``) on a real folder with real `flock`s, and the state
/// lines of unfinished transfers.
struct SessionSlotTests {
    static func folder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("qchat-slots-\(UUID().uuidString.prefix(8))").path
    }

    static func upload(path: String, name: String) -> FileTransfer {
        var transfer = FileTransfer(number: 3, direction: .upload(path: path, room: "lobby", to: nil), name: name, size: 1000,
                                    sha256: String(repeating: "ab", count: 32), id: "5F2B7C1E-0000-4000-8000-000000000001", started: .now())
        transfer.done = 640
        transfer.source = FileStamp(size: 1000, modified: 1_700_000_000_123_456_789)
        return transfer
    }

    /// Paths and names with spaces, `%`, line breaks and non-ASCII survive a state line; uploads
    /// to a nick and downloads too.
    @Test func stateLinesReadBack() throws {
        let upload = Self.upload(path: "/home/a b/100% done\nreally/é.bin", name: "é 100%.bin")
        let line = upload.stateLine
        #expect(!line.contains("\n") && line.split(separator: " ").count == 11)
        let back = try #require(FileTransfer(stateLine: Substring(line), number: 7, started: .now()))
        #expect(back.direction == upload.direction && back.name == upload.name && back.size == 1000 && back.done == 640)
        #expect(back.sha256 == upload.sha256 && back.id == upload.id && back.source == upload.source && back.number == 7)
        let private_ = FileTransfer(number: 1, direction: .upload(path: "/x", room: nil, to: "bob"), name: "x", size: 5,
                                    sha256: String(repeating: "0", count: 64), id: "id-1", started: .now())
        #expect(FileTransfer(stateLine: Substring(private_.stateLine), number: 1, started: .now())?.direction == private_.direction)
        var download = FileTransfer(number: 2, direction: .download(file: "0123456789abcdef0123456789abcdef", destination: "/d/n (1).txt"),
                                    name: "n.txt", size: 9, sha256: String(repeating: "f", count: 64), id: "0123456789abcdef0123456789abcdef",
                                    started: .now())
        download.done = 4
        let downloaded = try #require(FileTransfer(stateLine: Substring(download.stateLine), number: 1, started: .now()))
        #expect(downloaded.direction == download.direction && downloaded.done == 4 && downloaded.name == "n.txt")
    }

    /// A line that is not exactly a transfer is nil, never a guess.
    @Test(arguments: [
        "", "upload", "upload a b c", "copy x 1 " + String(repeating: "a", count: 64) + " 0 n /p",
        "download f 10 " + String(repeating: "a", count: 64) + " 11 n /d",  // done beyond the size
        "download f 10 nothex 0 n /d", "download f 10 " + String(repeating: "a", count: 64) + " 0 n relative",
        "download f 10 " + String(repeating: "a", count: 64) + " 0 n%2 /d",  // a broken escape
        "download f 10 " + String(repeating: "a", count: 64) + " 0 n /d extra",
        "upload i 10 " + String(repeating: "a", count: 64) + " 0 10 1 lobby bob n /p",  // both a room and a nick
        "upload i 10 " + String(repeating: "a", count: 64) + " 0 10 1 - - n /p",  // neither
    ])
    func damagedLinesAreRefused(_ line: String) {
        #expect(FileTransfer(stateLine: Substring(line), number: 1, started: .now()) == nil)
    }

    /// The first client takes slot 0, a second at the same time slot 1 with another peer id; once
    /// the first is gone its slot, peer id and unfinished transfers go to the next client.
    @Test func slotsAreHeldWhileTheirClientRuns() throws {
        let directory = Self.folder() + "/server/alice"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var first: SessionSlot? = try SessionSlot.claim(in: directory)
        let second = try SessionSlot.claim(in: directory)
        #expect(first?.index == 0 && second.index == 1 && first?.peer != second.peer)
        #expect(ChatValidation.isValidPeerID(second.peer) && first?.unfinished.isEmpty == true && first?.problem == nil)
        let peer = try #require(first?.peer)
        #expect(first?.save([Self.upload(path: "/tmp/a b", name: "a b")]) == true)
        first = nil
        let third = try SessionSlot.claim(in: directory)
        #expect(third.index == 0 && third.peer == peer)
        #expect(third.unfinished.count == 1)
        #expect(FileTransfer(stateLine: third.unfinished[0], number: 1, started: .now())?.direction
            == .upload(path: "/tmp/a b", room: "lobby", to: nil))
        let mode = try FileManager.default.attributesOfItem(atPath: third.statePath)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(throws: SessionSlot.Failure.allTaken(2)) { try SessionSlot.claim(in: directory, limit: 2) }
    }

    /// A state file without its peer line, or longer than 1 MiB, is started again (with a new
    /// peer id), and says so.
    @Test func damagedStateStartsAgain() throws {
        let directory = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "garbage\n".write(toFile: directory + "/slot-0.state", atomically: true, encoding: .utf8)
        let slot = try SessionSlot.claim(in: directory)
        #expect(slot.problem?.contains("damaged") == true && slot.unfinished.isEmpty)
        let text = try String(contentsOfFile: slot.statePath, encoding: .utf8)
        #expect(text.contains("peer \(slot.peer)\n"))
        let long = "peer \(slot.peer)\n" + String(repeating: "#\n", count: SessionSlot.byteLimit / 2)
        try long.write(toFile: directory + "/slot-1.state", atomically: true, encoding: .utf8)
        let next = try SessionSlot.claim(in: directory)
        #expect(next.index == 1 && next.problem?.contains("longer than") == true && next.peer != slot.peer)
    }
}
