import Dispatch
import Foundation
import RuntimeCore
import TestSupport

/// The real `udp-impair` executable as a child process, driven through stdin and read through
/// stdout the way the qchat test suites and people use it. Its waits are deadlines for the child
/// and stretch by `TestTime` like ChildProcess's (a sanitized proxy on a loaded machine, its exit
/// seen through Foundation's termination handler in a busy test process: 5 s once ran out).
final class ImpairProcess {
    /// Collects stdout lines from Foundation's reader thread; a separate Sendable object so the
    /// handler need not capture the (non-Sendable) process wrapper.
    private final class LineCollector: Sendable {
        private let state = LockedValue<(lines: [String], partial: String)>(([], ""))
        private let arrived = DispatchSemaphore(value: 0)

        func append(_ data: Data) {
            state.withLock { state in
                state.partial += String(decoding: data, as: UTF8.self)
                while let newline = state.partial.firstIndex(of: "\n") {
                    state.lines.append(String(state.partial[..<newline]))
                    state.partial = String(state.partial[state.partial.index(after: newline)...])
                }
            }
            arrived.signal()
        }

        /// Removes and returns the first line matching `matches`, waiting up to `timeout` seconds.
        func take(timeout: Double, where matches: (String) -> Bool) -> String? {
            let deadline = DispatchTime.now() + timeout
            while true {
                let found = state.withLock { state -> String? in
                    guard let index = state.lines.firstIndex(where: matches) else { return nil }
                    return state.lines.remove(at: index)
                }
                if let found { return found }
                if arrived.wait(timeout: deadline) == .timedOut { return nil }
            }
        }
    }

    /// Next to the test bundle, because the test target depends on the executable target.
    static var executablePath: String {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("udp-impair").path
    }

    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errors = Pipe()
    private let collector = LineCollector()
    private let exited = DispatchSemaphore(value: 0)

    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: ImpairProcess.executablePath)
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        output.fileHandleForReading.readabilityHandler = { [collector] handle in
            let data = handle.availableData
            if !data.isEmpty { collector.append(data) }
        }
        // Drained so a chatty stderr can never fill the pipe and block the proxy.
        errors.fileHandleForReading.readabilityHandler = { handle in _ = handle.availableData }
        process.terminationHandler = { [exited] _ in exited.signal() }
        try process.run()
    }

    deinit {
        if process.isRunning {
            process.terminate()
            // A proxy that ignores SIGTERM is a failed test, not an orphan left running.
            if exited.wait(timeout: .now() + TestTime.scaled(5)) == .timedOut { kill(process.processIdentifier, SIGKILL) }
        }
        // Foundation frees a Process only once waited for (ChildProcess.finish says why).
        process.waitUntilExit()
        output.fileHandleForReading.readabilityHandler = nil
        errors.fileHandleForReading.readabilityHandler = nil
    }

    /// The next stdout line starting with `prefix`, or nil after `timeout` seconds (scaled).
    func line(startingWith prefix: String, timeout: Double = 5) -> String? {
        collector.take(timeout: TestTime.scaled(timeout)) { $0.hasPrefix(prefix) }
    }

    /// Writes a command line to the proxy's stdin.
    func send(_ command: String) {
        input.fileHandleForWriting.write(Data((command + "\n").utf8))
    }

    func closeInput() {
        try? input.fileHandleForWriting.close()
    }

    func terminate() {
        process.terminate()
    }

    /// The exit status, or nil if the process is still running after `timeout` seconds (scaled).
    func waitForExit(timeout: Double = 5) -> Int32? {
        guard exited.wait(timeout: .now() + TestTime.scaled(timeout)) == .success else { return nil }
        exited.signal()
        return process.terminationStatus
    }
}
