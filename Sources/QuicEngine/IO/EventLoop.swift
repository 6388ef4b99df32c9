internal import CQuic
import Glibc
import Synchronization

/// One thread's loop over epoll: descriptors, a timerfd for the earliest deadline, wake-ups from
/// other threads, and signals. All QUIC state of a process is touched only from inside `run()`.
///
/// After every batch of input the loop runs its tick handlers (the QUIC drivers), which handle due
/// timers, deliver events, transmit, and report their next deadline.
public final class EventLoop {
    public let waker: LoopWaker
    private let epoll: Int32
    private let timer: Int32
    private var readHandlers: [Int32: () -> Void] = [:]
    private var writeHandlers: [Int32: () -> Void] = [:]
    private var ticks: [() -> (deadline: QuicTime?, busy: Bool)] = []
    private var channelDrains: [() -> Void] = []
    private var timers = LoopTimers()
    private var armedDeadline: QuicTime?
    private var signalDescriptor: Int32 = -1
    private var signalHandler: ((Int32) -> Void)?
    private var stopped = false

    public init() throws {
        epoll = try systemCall("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
        timer = try systemCall("timerfd_create") { timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC)) }
        waker = try LoopWaker()
        try add(descriptor: waker.descriptor, events: EPOLLIN.rawValue)
        try add(descriptor: timer, events: EPOLLIN.rawValue)
    }

    deinit {
        close(epoll)
        close(timer)
        if signalDescriptor >= 0 { close(signalDescriptor) }
    }

    // MARK: Registration (loop thread)

    public func watchReadable(_ descriptor: Int32, _ handler: @escaping () -> Void) throws {
        readHandlers[descriptor] = handler
        try add(descriptor: descriptor, events: EPOLLIN.rawValue)
    }

    /// Adds or removes interest in writability (after a send found the socket buffer full).
    public func watchWritable(_ descriptor: Int32, _ handler: (() -> Void)?) {
        writeHandlers[descriptor] = handler
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | (handler == nil ? 0 : EPOLLOUT.rawValue)
        event.data.fd = descriptor
        _ = epoll_ctl(epoll, EPOLL_CTL_MOD, descriptor, &event)
    }

    public func unwatch(_ descriptor: Int32) {
        readHandlers[descriptor] = nil
        writeHandlers[descriptor] = nil
        _ = epoll_ctl(epoll, EPOLL_CTL_DEL, descriptor, nil)
    }

    /// `tick` runs after each batch of input; it returns its next deadline and whether it still
    /// has work that another tick round should see (events raised by another component).
    public func addTick(_ tick: @escaping () -> (deadline: QuicTime?, busy: Bool)) {
        ticks.append(tick)
    }

    /// A channel whose messages `consumer` receives on the loop thread.
    public func makeChannel<Message: Sendable>(_ consumer: @escaping (Message) -> Void) -> LoopChannel<Message> {
        let channel = LoopChannel<Message>(waker: waker)
        channelDrains.append { for message in channel.drain() { consumer(message) } }
        return channel
    }

    /// Runs `body` on the loop at `deadline` (or at the next iteration when it has passed).
    @discardableResult
    public func schedule(at deadline: QuicTime, _ body: @escaping () -> Void) -> LoopTimerID {
        timers.schedule(at: deadline, body)
    }

    public func cancel(_ id: LoopTimerID) { timers.cancel(id) }

    /// Delivers the given signals to `handler` on the loop thread instead of their default action.
    /// Call before starting other threads: the signals are blocked in this thread and inherited.
    public func handleSignals(_ signals: [Int32], _ handler: @escaping (Int32) -> Void) throws {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        signalDescriptor = try systemCall("signalfd") { signalfd(-1, &set, Int32(SFD_NONBLOCK | SFD_CLOEXEC)) }
        signalHandler = handler
        try add(descriptor: signalDescriptor, events: EPOLLIN.rawValue)
    }

    /// Makes `run()` return after the current iteration (loop thread; other threads use the waker).
    public func stop() { stopped = true }

    // MARK: Running

    public func run() {
        stopped = false
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        runTicks()
        while !stopped && !waker.isStopRequested {
            let count = events.withUnsafeMutableBufferPointer { epoll_wait(epoll, $0.baseAddress, Int32($0.count), -1) }
            if count < 0 {
                if errno == EINTR { continue }
                break
            }
            for index in 0..<Int(count) {
                dispatch(events[index])
            }
            runTicks()
        }
    }

    private func dispatch(_ event: epoll_event) {
        let descriptor = event.data.fd
        if descriptor == waker.descriptor {
            waker.drain()
            for drain in channelDrains { drain() }
        } else if descriptor == timer {
            var expirations: UInt64 = 0
            _ = read(timer, &expirations, MemoryLayout<UInt64>.size)
            armedDeadline = nil
        } else if descriptor == signalDescriptor {
            var info = signalfd_siginfo()
            while read(signalDescriptor, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
                signalHandler?(Int32(info.ssi_signo))
            }
        } else {
            if event.events & EPOLLOUT.rawValue != 0, let handler = writeHandlers[descriptor] { handler() }
            if event.events & (EPOLLIN.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 { readHandlers[descriptor]?() }
        }
    }

    private func runTicks() {
        for body in timers.takeDue(now: QuicTime.now()) { body() }
        var earliest: QuicTime?
        for _ in 0..<8 {
            var busy = false
            earliest = timers.nextDeadline
            for tick in ticks {
                let result = tick()
                if let deadline = result.deadline { earliest = min(earliest ?? deadline, deadline) }
                busy = busy || result.busy
            }
            if !busy { break }
        }
        arm(earliest)
    }

    private func arm(_ deadline: QuicTime?) {
        guard deadline != armedDeadline else { return }
        armedDeadline = deadline
        var spec = itimerspec()
        if let deadline {
            // A zero it_value disarms the timer, so a deadline already passed becomes 1 ns.
            let nanoseconds = max(deadline.nanoseconds, 1)
            spec.it_value.tv_sec = Int(nanoseconds / 1_000_000_000)
            spec.it_value.tv_nsec = Int(nanoseconds % 1_000_000_000)
        }
        timerfd_settime(timer, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }

    private func add(descriptor: Int32, events: UInt32) throws {
        var event = epoll_event()
        event.events = events
        event.data.fd = descriptor
        try systemCall("epoll_ctl") { epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event) }
    }
}
