import CLIOptions
import ChatClientKit
import Glibc
import QuicEngine

/// Reading standard input: a terminal, a pipe, a regular file or /dev/null, a line at a time, with
/// backpressure (a script faster than the flood limit waits here, not in memory).
extension LineMode {
    func watchInput() {
        let flags = fcntl(0, F_GETFL)
        _ = fcntl(0, F_SETFL, flags | O_NONBLOCK)
        do {
            try loop.watchReadable(0) { [unowned self] in readInput() }
        } catch {
            // epoll takes no regular files (nor /dev/null): they are always readable, so they
            // are read on the loop's own turns instead.
            inputIsPolled = true
            loop.schedule(at: .now()) { [unowned self] in pollInput() }
        }
    }

    func pollInput() {
        guard !inputEnded, !inputPaused else { return }
        readInput()
        if !inputEnded && !inputPaused { loop.schedule(at: .now()) { [unowned self] in pollInput() } }
    }

    func readInput() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = read(0, &buffer, buffer.count)
        if count < 0 && (errno == EAGAIN || errno == EINTR) { return }
        if count <= 0 {
            if count < 0 { Console.error("chat-client: cannot read standard input: \(String(cString: strerror(errno)))") }
            if !inputIsPolled { loop.unwatch(0) }
            if !pending.isEmpty { entered(String(decoding: pending, as: UTF8.self)) }
            pending.removeAll()
            endOfInput()
            return
        }
        pending += buffer[..<count]
        while !inputEnded, let newline = pending.firstIndex(of: 10) {
            let line = String(decoding: pending[..<newline], as: UTF8.self)
            pending.removeSubrange(...newline)
            entered(line)
        }
        if linesAwaitingWelcome != nil, !inputEnded, !inputPaused {
            // What follows a command that waits for the server's features waits too (in order),
            // read no further than this until the welcome (``runLinesAwaitingWelcome()``).
            inputPaused = true
            if !inputIsPolled { loop.unwatch(0) }
            return
        }
        if inputEnded {
            // /quit: what follows it is not read.
            if !inputIsPolled { loop.unwatch(0) }
            pending.removeAll()
            return
        }
        pauseInputIfBusy()
    }

    /// Backpressure: a script faster than the flood limit waits here, not in memory.
    func pauseInputIfBusy() {
        guard !inputEnded, !inputPaused, session.outbox.waiting.count > Self.pauseAbove else { return }
        inputPaused = true
        if !inputIsPolled { loop.unwatch(0) }
        resumeWhenDrained()
    }

    func resumeWhenDrained() {
        loop.schedule(at: .now() + .milliseconds(100)) { [unowned self] in
            guard session.outbox.waiting.count < Self.resumeBelow else { return resumeWhenDrained() }
            resumeInput()
        }
    }

    func resumeInput() {
        guard inputPaused, linesAwaitingWelcome == nil else { return }
        inputPaused = false
        if inputIsPolled {
            pollInput()
        } else {
            try? loop.watchReadable(0) { [unowned self] in readInput() }
        }
    }

    /// The first `welcome` came: the lines that waited for the server's features are carried
    /// out, in order, and reading goes on.
    func runLinesAwaitingWelcome() {
        guard let lines = linesAwaitingWelcome else { return }
        linesAwaitingWelcome = nil
        for line in lines { entered(line) }
        resumeInput()
    }

    /// One line of input: a password or a trust answer when one is awaited, else a message or a
    /// command.
    func entered(_ line: String) {
        let text = line.hasSuffix("\r") ? String(line.dropLast()) : line
        if let purpose = awaitedSecret { return secretEntered(text, for: purpose) }
        if let fingerprint = awaitedTrust { return answered(trust: text, fingerprint) }
        if linesAwaitingWelcome != nil || (!session.everConnected && ClientCommands.needsServerFeatures(text)) {
            linesAwaitingWelcome = (linesAwaitingWelcome ?? []) + [text]
            return
        }
        ClientCommands.run(text, in: self)
    }

    func releaseInput() {
        guard inputHeld else { return }
        inputHeld = false
        watchInput()
    }
}
