import CTerminal
import Glibc

/// The controlling terminal in full-screen mode: raw input, the alternate screen, bracketed
/// paste. `leave()` undoes all of it and runs on every exit path; a crash restores it from a C
/// signal handler.
final class RawTerminal {
    static let enterSequence = "\u{1B}[?1049h\u{1B}[?2004h\u{1B}[H\u{1B}[2J"
    static let leaveSequence = "\u{1B}[?2004l\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"

    private var saved = termios()
    private(set) var isActive = false

    func enter() throws {
        guard tcgetattr(0, &saved) == 0 else { throw TerminalError("stdin is not a terminal") }
        let undo = Array(RawTerminal.leaveSequence.utf8)
        _ = undo.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { cterminal_arm_crash_restore(0, $0.baseAddress, UInt($0.count)) }
        }
        var raw = saved
        cfmakeraw(&raw)
        // Keep output post-processing off too: the renderer positions every cell itself.
        guard tcsetattr(0, TCSAFLUSH, &raw) == 0 else { throw TerminalError("cannot switch the terminal to raw mode") }
        isActive = true
        write(RawTerminal.enterSequence)
    }

    func leave() {
        guard isActive else { return }
        isActive = false
        write(RawTerminal.leaveSequence)
        tcsetattr(0, TCSAFLUSH, &saved)
        cterminal_restore()
    }

    /// Columns and rows; a terminal that cannot tell gets 80x24.
    var size: (columns: Int, rows: Int) {
        var rows: UInt16 = 0
        var columns: UInt16 = 0
        guard cterminal_window_size(1, &rows, &columns) == 0, rows > 0, columns > 0 else { return (80, 24) }
        return (Int(columns), Int(rows))
    }

    func write(_ text: String) { write(Array(text.utf8)) }

    func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(1, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return }
                offset += written
            }
        }
    }

    deinit { leave() }
}

struct TerminalError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
