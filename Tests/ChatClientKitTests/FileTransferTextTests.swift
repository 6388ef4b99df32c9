import ChatProtocol
import QuicEngine
import Testing

@testable import ChatClientKit

/// The client's side of files that needs no network: the commands, where a download lands, and
/// how progress reads.
struct FileTransferTextTests {
    /// `/send PATH`, `/send NICK PATH` (the path may hold spaces then), `/get N [FOLDER]`, `/cancel N`.
    @Test func fileCommandsParse() {
        let context = RecordingScreenContext()
        #expect(context.run("/send notes.txt") == ["send notes.txt to -"])
        #expect(context.run("/send bob my notes.txt") == ["send my notes.txt to bob"])
        #expect(context.run("/send") == ["complain usage: /send [NICK] PATH"])
        #expect(context.run("/get 3") == ["get 3 into -"])
        #expect(context.run("/get 3 /tmp/x y") == ["get 3 into /tmp/x y"])
        #expect(context.run("/get x") == ["complain usage: /get N [FOLDER]"])
        #expect(context.run("/get 0") == ["complain usage: /get N [FOLDER]"])
        #expect(context.run("/cancel 2") == ["cancel 2"])
        #expect(context.run("/cancel") == ["complain usage: /cancel N"])
    }

    /// Issue 24, defect 16: a count of bytes in a server's reason reads for people.
    @Test func byteCountsInReasons() {
        #expect(FileTransfer.humanizingByteCounts("too-large: files are at most 52428800 bytes here") == "too-large: files are at most 50.0 MiB here")
        #expect(FileTransfer.humanizingByteCounts("a topic is at most 512 bytes") == "a topic is at most 512 bytes")
    }

    /// A name from the network never leaves the folder and never replaces a file: `name (1).ext`,
    /// `(2)`, …, a `.part` in progress counting as taken.
    @Test(arguments: [
        ("notes.txt", [], "/d/notes.txt"),
        ("notes.txt", ["/d/notes.txt"], "/d/notes (1).txt"),
        ("notes.txt", ["/d/notes.txt", "/d/notes (1).txt.part"], "/d/notes (2).txt"),
        ("../../etc/passwd", [], "/d/_.._etc_passwd"),
        ("..", [], "/d/file"),
        ("/etc/passwd", [], "/d/_etc_passwd"),
        ("bad\u{1B}]0;title\u{07}name", [], "/d/bad_]0;title_name"),
        ("archive.tar.gz", ["/d/archive.tar.gz"], "/d/archive.tar (1).gz"),
        ("README", ["/d/README"], "/d/README (1)"),
        ("invoice\u{202E}fdp.exe", [], "/d/invoice_fdp.exe"),
        ("a\u{2066}b\u{200B}c\u{2028}d", [], "/d/a_b_c_d"),
    ])
    func downloadNames(_ name: String, _ taken: [String], _ expected: String) {
        #expect(DownloadName.path(in: "/d", for: name, taken: { taken.contains($0) }) == expected)
        #expect(DownloadName.path(in: "/d/", for: name, taken: { taken.contains($0) }) == expected)
    }

    /// Sizes read as people read them; progress shows bytes, percent, rate and time left.
    @Test func progressReads() {
        #expect(FileTransfer.bytes(0) == "0 B" && FileTransfer.bytes(1023) == "1023 B")
        #expect(FileTransfer.bytes(1536) == "1.5 KiB" && FileTransfer.bytes(3_000_000) == "2.9 MiB")
        #expect(FileTransfer.bytes(200 << 20) == "200.0 MiB" && FileTransfer.bytes(1 << 30) == "1.0 GiB")
        let start = MonotonicTime(nanoseconds: 1_000_000_000)
        var transfer = FileTransfer(number: 1, direction: .upload(path: "/x", room: "lobby", to: nil), name: "x", size: 10 << 20,
                                    sha256: "", id: "u", started: start)
        transfer.done = 5 << 20
        let later = start + .seconds(5)
        #expect(transfer.progressText(now: later) == "5.0 MiB/10.0 MiB 50% 1.0 MiB/s 5 s left")
        #expect(transfer.progressText(now: start) == "5.0 MiB/10.0 MiB 50%")
    }
}
