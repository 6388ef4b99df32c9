import Glibc

/// Output helpers that avoid the C `stdout`/`stderr` globals, which Swift 6 treats as shared
/// mutable state.
public enum Console {
    /// Writes a line to standard error, unbuffered (without its line feed: a prompt).
    public static func error(_ message: String, newline: Bool = true) {
        let line = Array((message + (newline ? "\n" : "")).utf8)
        line.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(2, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }

    /// Prints a line to standard output and flushes it, so a parent process reading a pipe sees
    /// it at once (READY lines, progress).
    public static func line(_ message: String) {
        print(message)
        fflush(nil)
    }
}
