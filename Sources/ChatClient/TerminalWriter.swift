import Glibc
import QuicIO

/// What the full-screen client writes to its terminal, every byte of it, in order, without ever
/// blocking the loop. Standard output shares its open file with standard input, which the client
/// reads non-blocking, so a write to a terminal that reads slowly stops short (EAGAIN): the rest
/// is kept here and written as the terminal becomes writable again, and ``isBacklogged`` tells
/// the client to draw no new frame meanwhile. Each frame is a diff against the one before, so a
/// frame cut short and never finished would leave the screen as no frame describes it (stray
/// cells until Ctrl-L; issue 24, defect 1).
final class TerminalWriter {
    private let loop: EventLoop
    private let descriptor: Int32
    private var pending: [UInt8] = []
    /// Bytes of `pending` already written.
    private var written = 0
    private var isWatching = false
    /// Everything queued has reached the terminal (after a backlog).
    var onDrained: () -> Void = {}

    init(loop: EventLoop, descriptor: Int32 = 1) {
        self.loop = loop
        self.descriptor = descriptor
    }

    /// Bytes wait for the terminal: draw nothing new until they are out.
    var isBacklogged: Bool { written < pending.count }

    func write(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        pending += bytes
        flush()
    }

    private func flush() {
        while written < pending.count {
            let count = pending.withUnsafeBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
            }
            if count > 0 {
                written += count
                continue
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return watch() }
            // The terminal is gone (EIO, EPIPE): nothing more can be shown.
            break
        }
        let wasBacklogged = isWatching
        pending = []
        written = 0
        unwatch()
        if wasBacklogged { onDrained() }
    }

    private func watch() {
        guard !isWatching else { return }
        isWatching = (try? loop.watch(descriptor, for: .writable) { [unowned self] _ in flush() }) != nil
        // A descriptor epoll refuses (a regular file) is always writable: the loop's next turn goes on.
        if !isWatching { loop.schedule(at: .now() + .milliseconds(10)) { [weak self] in self?.flush() } }
    }

    private func unwatch() {
        guard isWatching else { return }
        isWatching = false
        loop.unwatch(descriptor)
    }

    /// Before the screen is left (quit, Ctrl-Z): what waits is written, waiting for the terminal
    /// up to `patience` in all, so the bytes that restore it come after the frames, not in them.
    func finish(patience: TimeSpan = .seconds(2)) {
        unwatch()
        let deadline = MonotonicTime.now() + patience
        while written < pending.count {
            let count = pending.withUnsafeBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
            }
            if count > 0 {
                written += count
                continue
            }
            guard count < 0, errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK, MonotonicTime.now() < deadline else { break }
            var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            _ = poll(&poller, 1, 50)
        }
        pending = []
        written = 0
    }
}
