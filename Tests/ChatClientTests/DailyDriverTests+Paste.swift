import Foundation
import TestSupport
import Testing

extension DailyDriverTests {
    @Suite("pasting") struct Pasting {
        /// 40 lines pasted as keys (a terminal without bracketed paste) are all delivered, in
        /// order, paced under the server's flood limit (burst 20, 5 a second): none refused, no
        /// FLOODING close.
        @Test func fortyPastedLinesArriveInOrder() throws {
            let server = try ChatServerProcess()
            defer { server.stop() }
            let home = try ClientHome()
            defer { home.remove() }
            let watcher = try home.lineClient(port: server.port, nick: "watcher")
            #expect(watcher.waitForLine(timeout: 10) { $0.contains("watcher joined") } != nil)
            let bob = try DailyDriverTests.fullScreen(home, port: server.port, nick: "bob")
            #expect(watcher.waitForLine(timeout: 10) { $0.contains("bob joined") } != nil)
            #expect(bob.waitFor { $0.joined().contains("bob joined") })

            let lines = (1...40).map { "paste line " + ($0 < 10 ? "0" : "") + String($0) }
            try bob.paste(lines.joined(separator: "\n") + "\n", bracketed: false)
            #expect(watcher.waitForLine(timeout: 40) { untimed($0) == "#lobby <bob> paste line 40" } != nil, "\(bob.dump)")
            let received = watcher.outputLines.map(untimed).filter { $0.contains("<bob> paste line") }
            #expect(received == lines.map { "#lobby <bob> " + $0 })
            let screen = bob.dump
            #expect(!screen.contains("FLOODING") && !screen.contains("not sent") && !screen.contains("rate-limited"), "\(screen)")
            #expect(bob.waitFor { $0.first?.contains(" connected") == true }, "\(bob.dump)")
            watcher.closeInput()
            _ = watcher.finish(timeout: 10)
        }

        /// A bracketed paste of several lines is one message with its line breaks; a paste over
        /// 4096 bytes is sent as several messages cut at character boundaries, nothing refused.
        @Test func bracketedPasteKeepsLineBreaksAndSplitsLongText() throws {
            let server = try ChatServerProcess()
            defer { server.stop() }
            let home = try ClientHome()
            defer { home.remove() }
            let watcher = try home.lineClient(port: server.port, nick: "watcher", ["--json"])
            #expect(watcher.waitForLine(timeout: 10) { $0.contains("\"joined\"") && $0.contains("watcher") } != nil)
            let bob = try DailyDriverTests.fullScreen(home, port: server.port, nick: "bob")
            #expect(bob.waitFor { $0.joined().contains("bob joined") })

            func texts() -> [String] {
                watcher.outputLines.compactMap { line in
                    guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                          object["type"] as? String == "msg", object["sender"] as? String == "bob" else { return nil }
                    return object["text"] as? String
                }
            }
            try bob.paste("first\nsecond\nthird", bracketed: true)
            #expect(bob.waitFor { $0.last(where: { !$0.isEmpty })?.contains("third") == true }, "\(bob.dump)")
            try bob.press("Enter")
            #expect(watcher.waitForLine(timeout: 10) { $0.contains("third") } != nil)
            #expect(texts() == ["first\nsecond\nthird"])

            // 4,002 bytes of "é", then "e" + combining acute (3 bytes a character): 4,096 bytes end
            // inside a character, so the cut must come one byte earlier.
            let long = String(repeating: "é", count: 2001) + String(repeating: "e\u{301}", count: 700)
            try bob.paste(long, bracketed: true)
            #expect(bob.waitFor { $0.last(where: { !$0.isEmpty })?.contains("é") == true }, "\(bob.dump)")
            try bob.press("Enter")
            // The earlier message, then the two pieces of this one.
            #expect(watcher.waitForLine(timeout: 10, skipping: 2) { $0.contains("\"sender\":\"bob\"") && $0.contains("\"msg\"") } != nil)
            let parts = Array(texts().dropFirst())
            #expect(parts.count == 2)
            #expect(parts.joined() == long)
            #expect(parts.allSatisfy { $0.utf8.count <= 4096 })
            #expect(parts.last?.unicodeScalars.first == "e")
            #expect(!bob.dump.contains("too-large"))
            watcher.closeInput()
            _ = watcher.finish(timeout: 10)
        }
    }
}
