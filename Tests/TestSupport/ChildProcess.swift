import Foundation
import Testing

/// The repository root and the folder of the built executables, found from this file and the
/// running test bundle.
public enum BuildPaths {
    /// Tests/TestSupport/ChildProcess.swift → the repository root.
    public static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    public static var products: URL {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        // .build/<triple>/debug/qchatPackageTests.xctest
        return executable.deletingLastPathComponent()
    }
    public static func product(_ name: String) -> String { products.appendingPathComponent(name).path }
}

/// A program started as a user would start it, with its output captured.
public final class ChildProcess: @unchecked Sendable {
    // @unchecked: `lines` is only touched under `lock`; the Process object is used from the
    // test's thread only (start, wait, terminate).
    private let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    private let input = Pipe()
    private let lock = NSCondition()
    private var lines: [String] = []
    private var errorText = ""
    private var errorLines: [String] = []
    /// Bytes after the last line feed of each pipe: a long line can come in several reads.
    private var partialOutput: [UInt8] = []
    private var partialError: [UInt8] = []
    /// Signals this test sent to the child: a death by one of them is no crash.
    private var signalsSent: Set<Int32> = []
    /// Whether its crash (if any) was reported already: `finish` and `terminate` may both run.
    private var crashChecked = false

    /// `environment` is added to this process's environment, whose home is the test process's
    /// ``IsolatedHome`` unless `environment` names another; `standardInput` names a file to
    /// read instead of a pipe the test writes to (a regular file or `/dev/null`).
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                standardInput: String? = nil) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = errors
        if let standardInput {
            guard let file = FileHandle(forReadingAtPath: standardInput) else { throw CocoaError(.fileReadNoSuchFile) }
            process.standardInput = file
        } else {
            process.standardInput = input
        }
        process.environment = ProcessInfo.processInfo.environment.merging(IsolatedHome.environment) { $1 }.merging(environment) { $1 }
        // Our ends of the pipes must not leak into programs started later (tmux is started with
        // posix_spawn, which keeps every descriptor without FD_CLOEXEC): a leaked write end of
        // this child's stdin would keep closeInput() from ever reaching it as end of input.
        for descriptor in [input.fileHandleForWriting.fileDescriptor, output.fileHandleForReading.fileDescriptor,
                           errors.fileHandleForReading.fileDescriptor] {
            _ = fcntl(descriptor, F_SETFD, fcntl(descriptor, F_GETFD) | FD_CLOEXEC)
        }
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self, !data.isEmpty else { return }
            lock.lock()
            lines += ChildProcess.completeLines(of: data, after: &partialOutput)
            lock.broadcast()
            lock.unlock()
        }
        errors.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self, !data.isEmpty else { return }
            lock.lock()
            errorText += String(decoding: data, as: UTF8.self)
            errorLines += ChildProcess.completeLines(of: data, after: &partialError)
            lock.broadcast()
            lock.unlock()
        }
        try process.run()
    }

    /// A child that exited by itself and was never finished (only `terminate()`d, or not even
    /// that) is reaped here, for the reason `finish` waits.
    deinit {
        if process.processIdentifier != 0 && !process.isRunning { process.waitUntilExit() }
    }

    /// The process's resident set size (VmRSS; under AddressSanitizer without its shadow), or nil
    /// once it has exited.
    public func residentMemoryBytes() -> Int? {
        if Self.underAddressSanitizer { return residentMemoryOutsideShadow() }
        guard let status = try? String(contentsOfFile: "/proc/\(processIdentifier)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(whereSeparator: \.isWhitespace).dropFirst().first ?? "") else { return nil }
        return kilobytes * 1024
    }

    /// `make test-asan` runs every process under AddressSanitizer (scripts/test-sanitized.sh).
    private static let underAddressSanitizer = ProcessInfo.processInfo.environment["ASAN_OPTIONS"] != nil

    /// AddressSanitizer's shadow on x86-64 Linux: one byte per 8 of the program's memory, which
    /// stays resident once the memory it describes was touched, freed or not. Nothing else is ever
    /// mapped there (a program's own mappings lie below 2 GiB or above 64 TiB).
    private static let shadow: ClosedRange<UInt64> = 0x7fff_8000...0x1000_7fff_7fff

    /// Resident memory of every mapping outside the shadow, from `/proc/PID/smaps`: what the
    /// program holds, without the sanitizer's bookkeeping of what it once touched (a 57 MiB
    /// upload left chat-client about 8 MB of shadow that no `free` gives back).
    private func residentMemoryOutsideShadow() -> Int? {
        guard let smaps = try? String(contentsOfFile: "/proc/\(processIdentifier)/smaps", encoding: .utf8) else { return nil }
        var kilobytes = 0
        var inShadow = false
        for line in smaps.split(separator: "\n") {
            if let dash = line.firstIndex(of: "-"), let start = UInt64(line[..<dash], radix: 16) {
                inShadow = Self.shadow.contains(start)
            } else if !inShadow, line.hasPrefix("Rss:") {
                kilobytes += Int(line.split(whereSeparator: \.isWhitespace).dropFirst().first ?? "") ?? 0
            }
        }
        return kilobytes * 1024
    }

    private static func completeLines(of data: Data, after partial: inout [UInt8]) -> [String] {
        partial += data
        guard let last = partial.lastIndex(of: 10) else { return [] }
        let complete = partial[..<last].split(separator: 10, omittingEmptySubsequences: true).map { String(decoding: $0, as: UTF8.self) }
        partial.removeSubrange(...last)
        return complete
    }

    /// Waits for an output line starting with `prefix`; nil on timeout or exit.
    public func waitForLine(prefix: String, timeout: TimeInterval) -> String? {
        waitForLine(timeout: timeout) { $0.hasPrefix(prefix) }
    }

    /// Waits for a line on stdout or stderr that `matches`; nil on timeout (scaled by
    /// `TestTime`) or exit. With `skipping` n, the first n matching lines do not count (for a
    /// reply asked for again).
    public func waitForLine(timeout: TimeInterval, skipping: Int = 0, where matches: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(TestTime.scaled(timeout))
        lock.lock()
        defer { lock.unlock() }
        while true {
            if let line = (lines + errorLines).lazy.filter(matches).dropFirst(skipping).first { return line }
            if !process.isRunning || Date() >= deadline { return nil }
            _ = lock.wait(until: min(deadline, Date().addingTimeInterval(0.2)))
        }
    }

    /// How many lines on stdout or stderr so far `match`.
    public func lineCount(where matches: (String) -> Bool) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return (lines + errorLines).filter(matches).count
    }

    /// Lines written to stdout so far.
    public var outputLines: [String] {
        lock.lock()
        defer { lock.unlock() }
        return lines
    }

    /// Lines written to stderr so far.
    public var errorOutput: [String] {
        lock.lock()
        defer { lock.unlock() }
        return errorLines
    }

    /// Ends the child's standard input (EOF).
    public func closeInput() {
        try? input.fileHandleForWriting.close()
    }

    /// Writes to the child's standard input.
    public func write(_ text: String) {
        input.fileHandleForWriting.write(Data(text.utf8))
    }

    /// Waits up to `timeout` seconds (scaled by `TestTime`) for the process to exit by itself;
    /// false if it still runs (it is left running).
    public func waitForExit(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(TestTime.scaled(timeout))
        while process.isRunning && Date() < deadline { usleep(10_000) }
        return !process.isRunning
    }

    /// Waits for exit (killing the process after `timeout`, scaled by `TestTime`) and returns
    /// status and stdout.
    ///
    /// `waitUntilExit()` even when `isRunning` already says the child is gone: Foundation
    /// (swift-corelibs-foundation 6.3.1) breaks the cycle between a `Process` and its run-loop
    /// source only there, so a child merely polled to its end kept its `Process`, pipes, file
    /// handles and dispatch sources (about 2.6 KB) until the test process exited; LeakSanitizer
    /// reported that as Foundation's (docs/SANITIZERS.md).
    public func finish(timeout: TimeInterval) -> (status: Int32, output: String, errors: String) {
        let deadline = Date().addingTimeInterval(TestTime.scaled(timeout))
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { stop() }
        process.waitUntilExit()
        output.fileHandleForReading.readabilityHandler = nil
        errors.fileHandleForReading.readabilityHandler = nil
        // What the handlers had not read yet: a program that exits at once (a usage error) can
        // be gone before its stderr handler ever ran.
        let rest = output.fileHandleForReading.readDataToEndOfFile()
        let restOfErrors = errors.fileHandleForReading.readDataToEndOfFile()
        lock.lock()
        lines += ChildProcess.completeLines(of: rest + Data([10]), after: &partialOutput)
        errorText += String(decoding: restOfErrors, as: UTF8.self)
        errorLines += ChildProcess.completeLines(of: restOfErrors + Data([10]), after: &partialError)
        let result = (process.terminationStatus, lines.joined(separator: "\n"), errorText)
        lock.unlock()
        recordCrash()
        return result
    }

    /// SIGTERM, then SIGKILL after 5 s (scaled by `TestTime`): a child can inherit a mask that blocks SIGTERM from the
    /// dispatch thread that started it.
    public func terminate() {
        if process.isRunning { stop() }
        process.waitUntilExit()
        recordCrash()
    }

    /// Sends a signal (SIGTERM for a graceful stop, SIGKILL for a crash).
    public func signal(_ number: Int32) {
        lock.lock()
        signalsSent.insert(number)
        lock.unlock()
        kill(process.processIdentifier, number)
    }

    /// How the child crashed, once it has exited: killed by a signal that only a fault raises
    /// (a Swift trap is SIGILL or SIGTRAP) and that this test did not send, or the Swift runtime's
    /// crash report on its standard error (its crash handler can keep the process alive after the
    /// report until `stop`'s SIGKILL). Nil while it runs or when it ended otherwise.
    public var crash: String? {
        guard process.processIdentifier != 0, !process.isRunning else { return nil }
        lock.lock()
        defer { lock.unlock() }
        if let report = errorLines.first(where: { $0.contains("Program crashed:") }) {
            return "crash report: \(report)"
        }
        let status = process.terminationStatus
        if process.terminationReason == .uncaughtSignal, Self.faultSignals.contains(status), !signalsSent.contains(status) {
            let lastErrors = errorLines.suffix(5).joined(separator: " | ")
            return "killed by signal \(status)\(lastErrors.isEmpty ? "" : "; its last errors: \(lastErrors)")"
        }
        return nil
    }

    private static let faultSignals: Set<Int32> = [SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGSYS]

    /// A child of a test must never crash unseen (docs/SANITIZERS.md: a chat-server crashed under
    /// ThreadSanitizer with no test failing): its crash is an issue of the test that ends it.
    private func recordCrash() {
        lock.lock()
        let first = !crashChecked
        crashChecked = true
        lock.unlock()
        guard first, let crash else { return }
        let name = process.executableURL?.lastPathComponent ?? "child"
        Issue.record("\(name) (pid \(process.processIdentifier)) crashed: \(crash)")
    }

    public var processIdentifier: Int32 { process.processIdentifier }

    private func stop() {
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(TestTime.scaled(5))
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    public var isRunning: Bool { process.isRunning }
}
