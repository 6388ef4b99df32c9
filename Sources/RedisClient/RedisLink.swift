import EventRuntime

/// One TCP connection to one Redis server on an event loop, and its replacements: a
/// non-blocking connect with a timeout, buffered writes, reads handed to the session, and after
/// any loss a reconnect with backoff and jitter, until `stop()`. Loop thread only.
final class RedisLink {
    enum State: Equatable { case idle, connecting, open, waiting, stopped }

    let address: RedisServerAddress
    private let loop: EventLoop
    private let settings: RedisConnectionSettings
    private let random: RandomBytes
    private let readBuffer: RedisReadBuffer
    private let session: any RedisLinkSession
    private(set) var state: State = .idle
    private var stream: TCPStream?
    private var watchingWrites = false
    private var attempt = 0
    private var timer: LoopTimerID?
    private var heartbeat: LoopTimerID?
    /// Told when the connection opens (nil) and each time it is lost (why).
    var onStateChange: (RedisFailure?) -> Void = { _ in }
    /// Set when the session has bytes to write and the owner's tick has not flushed yet.
    var isDirty = false

    init(address: RedisServerAddress, session: any RedisLinkSession, loop: EventLoop, settings: RedisConnectionSettings,
         random: RandomBytes, readBuffer: RedisReadBuffer) {
        self.address = address
        self.session = session
        self.loop = loop
        self.settings = settings
        self.random = random
        self.readBuffer = readBuffer
    }

    /// Commands may be queued: the connection is open or about to be.
    var acceptsCommands: Bool { state == .open || state == .connecting }

    func start() {
        guard state == .idle else { return }
        connect()
    }

    /// Closes for good; what waits is answered with `failure`.
    func stop(_ failure: RedisFailure = .stopped) {
        guard state != .stopped else { return }
        closeSocket()
        cancelTimers()
        state = .stopped
        session.linkLost(failure)
    }

    /// Drops the connection as a network failure would, then reconnects (tests; the owner's
    /// reaction to a server it no longer trusts).
    func drop(_ failure: RedisFailure) {
        guard state == .open || state == .connecting else { return }
        closeSocket()
        cancelTimers()
        state = .waiting
        session.linkLost(failure)
        onStateChange(failure)
        scheduleReconnect()
    }

    /// Writes what the session has queued, as far as the socket takes it.
    func flush() {
        isDirty = false
        guard state == .open, let stream else { return }
        do {
            try session.linkWrite { try stream.write($0) }
        } catch {
            drop(.connectionLost("\(error)"))
            return
        }
        let more = session.linkHasOutbound
        if more != watchingWrites {
            watchingWrites = more
            loop.watchWritable(stream.descriptor, more ? { [unowned self] in flush() } : nil)
        }
    }

    private func connect() {
        guard state != .stopped else { return }
        // A name is resolved on each attempt (a server moved by DNS is found again); numeric
        // addresses, what clusters announce, cost no lookup.
        guard let remote = SocketAddress.resolve(host: address.host, port: address.port) else {
            fail(.unavailable("cannot resolve \(address.host)"))
            return
        }
        do {
            let stream = try TCPStream(connectingTo: remote)
            self.stream = stream
            try loop.watchReadable(stream.descriptor) { [unowned self] in readable() }
            loop.watchWritable(stream.descriptor) { [unowned self] in connectCompleted() }
            watchingWrites = true
        } catch {
            closeSocket()
            fail(.unavailable("connect to \(address): \(error)"))
            return
        }
        state = .connecting
        timer = loop.schedule(at: .now() + settings.connectTimeout) { [unowned self] in
            timer = nil
            drop(.unavailable("connect to \(address) timed out"))
        }
    }

    /// A connect attempt failed before any socket could be watched.
    private func fail(_ failure: RedisFailure) {
        state = .waiting
        session.linkLost(failure)
        onStateChange(failure)
        scheduleReconnect()
    }

    private func connectCompleted() {
        guard state == .connecting, let stream else { return }
        do {
            try stream.finishConnect()
        } catch {
            drop(.unavailable("\(error)"))
            return
        }
        if let timer { loop.cancel(timer) }
        timer = nil
        state = .open
        attempt = 0
        loop.watchWritable(stream.descriptor, nil)
        watchingWrites = false
        session.linkOpened()
        onStateChange(nil)
        guard state == .open else { return }
        scheduleHeartbeat()
        flush()
    }

    private func readable() {
        if state == .connecting {
            connectCompleted()
            guard state == .open else { return }
        }
        guard state == .open, let stream else { return }
        // A bounded number of reads per wake-up: epoll is level-triggered, so what is left is
        // read on the next round, after the other descriptors had their turn.
        for _ in 0..<16 {
            let count: Int?
            do {
                count = try stream.read(into: readBuffer.bytes)
            } catch {
                drop(.connectionLost("\(error)"))
                return
            }
            guard let count else { break }
            if count == 0 {
                drop(.connectionLost("closed by \(address)"))
                return
            }
            if let failure = session.linkReceived(UnsafeRawBufferPointer(rebasing: readBuffer.bytes[..<count])) {
                drop(failure)
                return
            }
            // A completion may have stopped or dropped this link.
            guard state == .open, self.stream === stream else { return }
        }
        if session.linkHasOutbound { flush() }
    }

    private func scheduleHeartbeat() {
        heartbeat = loop.schedule(at: .now() + settings.heartbeatInterval) { [unowned self] in
            heartbeat = nil
            guard state == .open else { return }
            if let failure = session.linkCheck(now: .now()) {
                drop(failure)
                return
            }
            scheduleHeartbeat()
            if session.linkHasOutbound { flush() }
        }
    }

    private func scheduleReconnect() {
        // A completion or the state callback may have stopped this link (and its owner may
        // release it): nothing is scheduled for a stopped link, its timers hold it unowned.
        guard state == .waiting else { return }
        let delay = settings.backoff.delay(attempt: attempt, random: random.next())
        attempt += 1
        timer = loop.schedule(at: .now() + delay) { [unowned self] in
            timer = nil
            connect()
        }
    }

    private func cancelTimers() {
        if let timer { loop.cancel(timer) }
        if let heartbeat { loop.cancel(heartbeat) }
        timer = nil
        heartbeat = nil
    }

    private func closeSocket() {
        guard let stream else { return }
        loop.unwatch(stream.descriptor)
        stream.close()
        self.stream = nil
        watchingWrites = false
    }
}

/// The one read buffer all links of a client share: they run on one thread, one at a time.
final class RedisReadBuffer {
    let bytes: UnsafeMutableRawBufferPointer

    init(size: Int = 64 << 10) {
        bytes = .allocate(byteCount: size, alignment: 16)
    }

    deinit { bytes.deallocate() }
}
