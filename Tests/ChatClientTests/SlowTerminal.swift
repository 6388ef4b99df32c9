import Foundation
import TestSupport

/// chat-client full screen on a terminal that reads its output slowly, emulated by pyte, an
/// independent emulator (Tests/Fixtures/slow_terminal.py): what a slow terminal finally shows.
final class SlowTerminal {
    let process: ChildProcess
    let rows: Int

    /// `command`: the client's shell words; the terminal reads `chunk` bytes every `delay` ms.
    init(_ command: [String], columns: Int = 100, rows: Int = 30, chunk: Int = 256, delay: Int = 4) throws {
        self.rows = rows
        let script = BuildPaths.repository.appendingPathComponent("Tests/Fixtures/slow_terminal.py").path
        process = try ChildProcess("/usr/bin/python3", [script, "\(columns)", "\(rows)", "\(chunk)", "\(delay)"] + command)
    }

    /// Sends one command of the script and waits for its answer; true for `OK`.
    @discardableResult
    func command(_ line: String, timeout: TimeInterval = 60) -> Bool {
        let before = process.lineCount { $0 == "OK" || $0 == "TIMEOUT" }
        process.write(line + "\n")
        let answer = process.waitForLine(timeout: timeout, skipping: before) { $0 == "OK" || $0 == "TIMEOUT" }
        return answer == "OK"
    }

    func wait(for text: String, seconds: Int = 20) -> Bool { command("wait \(text) \(seconds)", timeout: TimeInterval(seconds + 5)) }

    /// Until nothing has come for `milliseconds`.
    func quiet(_ milliseconds: Int = 1500) -> Bool { command("quiet \(milliseconds) 60", timeout: 70) }

    /// The emulated screen's rows.
    func screen() -> [String] {
        let before = process.outputLines.count
        guard command("screen") else { return [] }
        return process.outputLines.dropFirst(before).filter { $0.hasPrefix("| ") }.map { String($0.dropFirst(2)) }.suffix(rows)
    }

    /// The desktop notifications (OSC 9 and OSC 777) the program wrote so far, their payloads.
    func notifications() -> [String] { osc().filter { $0.hasPrefix("9;") || $0.hasPrefix("777;") } }

    /// The hyperlinks (OSC 8) opened so far: their URLs.
    func hyperlinks() -> [String] { osc().filter { $0.hasPrefix("8;;") && $0.count > 3 }.map { String($0.dropFirst(3)) } }

    /// The payloads of the OSC 8, 9 and 777 sequences the program wrote so far.
    private func osc() -> [String] {
        let before = process.outputLines.count
        guard command("osc") else { return [] }
        return process.outputLines.dropFirst(before).filter { $0.hasPrefix("> ") }.map { String($0.dropFirst(2)) }
    }

    func stop() {
        process.terminate()
    }
}
