import Foundation
import TestSupport
import Testing

extension DailyDriverTests {
    @Suite("files") struct Files {
        /// Full screen under tmux: alice `/send`s a 150 MiB file and her status bar shows its
        /// progress (bytes, rate, time left); bob sees the file's line with its number, `/get`s it
        /// into a folder, and the saved file, SHA-256 checked, equals the original.
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
            let alice = try DailyDriverTests.fullScreen(aliceHome, port: server.port, nick: "alice")
            #expect(alice.waitFor { $0.joined().contains("alice joined") }, "\(alice.dump)")
            try DailyDriverTests.enter(alice, "/send \(folder)/big.bin")
            #expect(alice.waitFor(timeout: 60) { ($0.first ?? "").contains("↑ big.bin") && ($0.first ?? "").contains("/150.0 MiB") },
                    "\(alice.dump)")
            #expect(alice.waitFor(timeout: 120) { $0.joined().contains("[transfer 1] sent big.bin (150.0 MiB)") }, "\(alice.dump)")
            #expect(bob.waitFor(timeout: 30) { $0.joined().contains("shared big.bin (150.0 MiB) [file 1]") }, "\(bob.dump)")
            try DailyDriverTests.enter(bob, "/get 1 \(folder)/out")
            #expect(bob.waitFor(timeout: 120) { $0.joined().contains("[transfer 1] saved") }, "\(bob.dump)")
            #expect(FileManager.default.contents(atPath: folder + "/out/big.bin") == Data(bytes))
        }
    }
}
