import Foundation
import TestSupport
import Testing

extension DailyDriverTests {
    @Suite("files") struct Files {
        /// Full screen under tmux: alice `/send`s a 150 MiB file and her status bar (160 columns)
        /// shows its progress as a drawn bar with the percent, bytes, rate and time left; bob sees
        /// the file's line with its number, `/get`s it into a folder (his 100-column bar: name, bar
        /// and percent at least), and the saved file, SHA-256 checked, equals the original.
        @Test func sendShowsProgressAndTheOtherGetsIt() throws {
            let folder = try LineModeFileTests.folder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let bytes = try LineModeFileTests.bigFile(at: folder + "/big.bin")
            let server = try ChatServerProcess(["--max-file-size", "\(200 << 20)"])
            defer { server.stop() }
            let aliceHome = try ClientHome(), bobHome = try ClientHome()
            defer {
                aliceHome.remove()
                bobHome.remove()
            }
            let bob = try DailyDriverTests.fullScreen(bobHome, port: server.port, nick: "bob")
            #expect(bob.waitFor { $0.joined().contains("bob joined") }, "\(bob.dump)")
            let alice = try DailyDriverTests.fullScreen(aliceHome, port: server.port, nick: "alice", columns: 160)
            #expect(alice.waitFor { $0.joined().contains("alice joined") }, "\(alice.dump)")
            try DailyDriverTests.enter(alice, "/send \(folder)/big.bin")
            #expect(alice.waitFor(timeout: 60) { Self.hasProgressBar($0.first ?? "", arrow: "↑", figures: true) }, "\(alice.dump)")
            #expect(alice.waitFor(timeout: 120) { $0.joined().contains("[transfer 1] sent big.bin (150.0 MiB)") }, "\(alice.dump)")
            #expect(bob.waitFor(timeout: 30) { $0.joined().contains("shared big.bin (150.0 MiB) [file 1]") }, "\(bob.dump)")
            try DailyDriverTests.enter(bob, "/get 1 \(folder)/out")
            #expect(bob.waitFor(timeout: 60) { Self.hasProgressBar($0.first ?? "", arrow: "↓", figures: false) }, "\(bob.dump)")
            #expect(bob.waitFor(timeout: 120) { $0.joined().contains("[transfer 1] saved") }, "\(bob.dump)")
            #expect(FileManager.default.contents(atPath: folder + "/out/big.bin") == Data(bytes))
        }

        /// A status bar that draws a transfer: `ARROW big.bin [███▍      ] 34%`, with
        /// `… MiB/150.0 MiB … MiB/s … s left` after it when `figures`.
        static func hasProgressBar(_ bar: String, arrow: String, figures: Bool) -> Bool {
            guard let start = bar.range(of: "\(arrow) big.bin ["), let close = bar[start.upperBound...].firstIndex(of: "]") else { return false }
            let cells = bar[start.upperBound..<close]
            let drawn = cells.count == 10 && cells.contains("█") && cells.allSatisfy { "█▏▎▍▌▋▊▉ ".contains($0) }
            let rest = bar[bar.index(after: close)...]
            guard drawn, rest.hasPrefix(" "), rest.dropFirst().prefix { $0.isNumber }.count > 0, rest.contains("% ") || rest.hasSuffix("%") else {
                return false
            }
            // Amounts and rates in whatever unit they have come to: under ThreadSanitizer the upload
            // ran below 1 MiB/s, shown as KiB/s, and this check waited for MiB in vain.
            let figuresShown = /(\d+ B|\d+\.\d [KMG]iB)\/150\.0 MiB .*(\d+ B|\d+\.\d [KMG]iB)\/s \d+ s left/
            return !figures || rest.contains(figuresShown)
        }
    }
}
