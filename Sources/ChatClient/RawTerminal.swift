import CTerminal
import Glibc

/// The controlling terminal in full-screen mode: raw input, the alternate screen, bracketed
/// paste. `leave()` undoes all of it and runs on every exit path; a crash restores it from a C
/// signal handler.
final class RawTerminal {
    /// Saves the title (xterm's title stack, CSI 22;2 t), alternate screen, bracketed paste, clear.
    static let enterSequence = "\u{1B}[22;2t\u{1B}[?1049h\u{1B}[?2004h\u{1B}[H\u{1B}[2J"
    /// The reverse, the saved title restored (CSI 23;2 t).
    static let leaveSequence = "\u{1B}[?2004l\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l\u{1B}[23;2t"

    private var saved = termios()
    private(set) var isActive = false
    /// Where the bytes go once the loop runs (every byte, never blocking it); before that, and
    /// without one, they are written at once.
    var output: TerminalWriter?

    /// Bytes wait for a slow terminal: no new frame now.
    var isBacklogged: Bool { output?.isBacklogged ?? false }

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
        output?.finish()
        isActive = false
        writeNow(Array(RawTerminal.leaveSequence.utf8))
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

    /// Suspends the process as Ctrl-Z does in a cooked terminal: the terminal is given back to the
    /// shell, the process stops, and when the shell continues it (`fg`) raw mode is back; the
    /// caller redraws everything.
    func suspend() {
        guard isActive else { return }
        leave()
        kill(getpid(), SIGSTOP)
        try? enter()
    }

    /// Raw mode and our screen modes again after something else may have changed them (a
    /// SIGCONT after a stop we did not make); the title stays pushed once.
    func reassert() {
        guard isActive else { return }
        var raw = saved
        cfmakeraw(&raw)
        tcsetattr(0, TCSANOW, &raw)
        write("\u{1B}[?1049h\u{1B}[?2004h")
    }

    /// Rings the bell: terminals and multiplexers flag the window (urgency, tmux's bell flag).
    func ringBell() { write("\u{07}") }

    /// Sets the window title (OSC 2). `title` must be neutralised: no control characters.
    func setTitle(_ title: String) { write("\u{1B}]2;\(title)\u{07}") }

    func write(_ text: String) { write(Array(text.utf8)) }

    func write(_ bytes: [UInt8]) {
        if let output, isActive { return output.write(bytes) }
        writeNow(bytes)
    }

    /// Written at once, waiting for the terminal if need be (entering and leaving the screen).
    private func writeNow(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(1, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                    var poller = pollfd(fd: 1, events: Int16(POLLOUT), revents: 0)
                    if poll(&poller, 1, 1000) > 0 { continue }
                    return
                }
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
