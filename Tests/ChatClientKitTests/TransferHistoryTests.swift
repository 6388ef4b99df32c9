import QuicEngine
import Testing

@testable import ChatClientKit

/// `/transfers` (issue 24, habits): running transfers with their progress, then those that
/// ended, at most ``TransferHistory/endedLimit``.
struct TransferHistoryTests {
    let start = MonotonicTime(nanoseconds: 1_000_000_000)

    func transfer(_ number: Int, _ direction: FileTransfer.Direction, name: String, sha256: String = "ab") -> FileTransfer {
        FileTransfer(number: number, direction: direction, name: name, size: 4 << 20, sha256: sha256, id: "t\(number)", started: start)
    }

    @Test func runningThenEnded() {
        var history = TransferHistory()
        #expect(history.lines(running: [], now: start) { $0 }.first?.hasPrefix("no transfers in this run") == true)
        history.record(.finished(transfer(1, .upload(path: "/r", room: "lobby", to: nil), name: "report.pdf"), ack: nil))
        history.record(.failed(transfer(2, .download(file: "f", destination: "/d/photo.jpg"), name: "photo.jpg"), reason: "bad hash"))
        history.record(.progress(transfer(5, .upload(path: "/p", room: nil, to: "bob"), name: "p")))
        var running = transfer(4, .download(file: "g", destination: "/d/big.iso"), name: "big.iso")
        running.done = 1 << 20
        let hashing = transfer(3, .upload(path: "/n", room: nil, to: "bob"), name: "notes", sha256: "")
        #expect(history.lines(running: [running, hashing], now: start) { $0 } == [
            "2 transfers running, 2 ended:",
            "transfer 3 ↑ notes (4.0 MiB) to bob: hashing",
            "transfer 4 ↓ big.iso (4.0 MiB): 1.0 MiB/4.0 MiB 25%",
            "transfer 1 ↑ report.pdf (4.0 MiB) to #lobby: sent",
            "transfer 2 ↓ photo.jpg (4.0 MiB): failed: bad hash",
        ])
        for number in 10..<40 { history.record(.cancelled(transfer(number, .upload(path: "/c", room: "lobby", to: nil), name: "c"))) }
        #expect(history.ended.count == TransferHistory.endedLimit && history.ended.first?.transfer.number == 20)
    }
}
