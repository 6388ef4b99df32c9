import ChatTUI
import Glibc
import QuicIO

/// Keys typed on the terminal (standard input, non-blocking), decoded on the loop: a lone Esc
/// is told from the start of an escape sequence by waiting 40 ms for the rest.
final class TerminalKeys {
    private let loop: EventLoop
    private var decoder = KeyDecoder()
    private var escapeTimer: LoopTimerID?
    /// Each key, in order.
    var onKey: (KeyEvent) -> Void = { _ in }
    /// After the keys of a read, or of a wait that ended an escape sequence, were handed over.
    var onKeysHandled: () -> Void = {}

    init(loop: EventLoop) { self.loop = loop }

    /// Reads what is there; false when the terminal is gone (end of input or an error).
    func read() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = Glibc.read(0, &buffer, buffer.count)
        if count < 0 && (errno == EAGAIN || errno == EINTR) { return true }
        guard count > 0 else { return false }
        for key in decoder.feed(buffer[..<count]) { onKey(key) }
        if let escapeTimer { loop.cancel(escapeTimer) }
        escapeTimer = nil
        if decoder.needsTimeoutFlush {
            escapeTimer = loop.schedule(at: .now() + .milliseconds(40)) { [unowned self] in
                escapeTimer = nil
                for key in decoder.flushPending() { onKey(key) }
                onKeysHandled()
            }
        }
        onKeysHandled()
        return true
    }
}
