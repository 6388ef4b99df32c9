import Glibc

/// One status line on standard error, rewritten in place on a terminal and printed line by line
/// otherwise (logs and pipes keep every update).
final class ProgressLine {
    private let isTerminal = isatty(2) == 1
    private var showing = false

    func show(_ text: String) {
        if isTerminal {
            // Carriage return, the line, then erase whatever a longer previous line left.
            emit("\r" + text + "\u{1B}[K")
            showing = true
        } else {
            emit(text + "\n")
        }
    }

    /// Ends the live line with `text` as a permanent one.
    func finish(_ text: String) {
        if isTerminal && showing {
            emit("\r" + text + "\u{1B}[K\n")
            showing = false
        } else {
            emit(text + "\n")
        }
    }

    private func emit(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            if written <= 0 { return }
            offset += written
        }
    }
}
