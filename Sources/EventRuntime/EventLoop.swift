internal import CLinux
import Glibc
import Synchronization
import RuntimeCore

/// One thread's loop over epoll: descriptors, the earliest deadline as the wait's own timeout,
/// wake-ups from other threads, and signals: the one event loop of the tree (the chat server and
/// client, Redis, metrics, service discovery, the impairment proxy). All state a loop serves (a
/// process's QUIC connections, say) is touched only from inside `run()`.
///
/// After every batch of input the loop runs its tick handlers (the QUIC drivers, the proxy), which
/// handle due timers, deliver events, transmit, and report their next deadline.
public final class EventLoop {
    public let waker: LoopWaker
    private let epoll: Int32
    private var readHandlers: [Int32: () -> Void] = [:]
    private var writeHandlers: [Int32: () -> Void] = [:]
    private var errorHandlers: [Int32: () -> Void] = [:]
    /// Descriptors watched for any mix of events by one handler (a library's own poll API).
    private var readinessHandlers: [Int32: (DescriptorEvents) -> Void] = [:]
    private var ticks: [() -> (deadline: MonotonicTime?, busy: Bool)] = []
    private var channelDrains: [() -> Void] = []
    private var timers = LoopTimers()
    /// False once the kernel refused `epoll_pwait2` (before Linux 5.11): waits then time out in
    /// whole milliseconds, rounded up.
    private var hasNanosecondWait = true
    private var signalDescriptor: Int32 = -1
    private var signalHandler: ((Int32) -> Void)?
    private var stopped = false
    /// ``pauseInput(until:)``: the next wait starts no earlier than this.
    private var inputPausedUntil: MonotonicTime?

    public convenience init() throws {
        try self.init(waker: LoopWaker())
    }

    /// A loop woken by `waker`, made beforehand: other threads may hold it (and ask the loop to
    /// stop) before the loop exists.
    public init(waker: LoopWaker) throws {
        epoll = try systemCall("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
        self.waker = waker
        // Should this throw, deinit closes the epoll descriptor: everything is initialised.
        try add(descriptor: waker.descriptor, events: EPOLLIN.rawValue)
    }

    deinit {
        close(epoll)
        if signalDescriptor >= 0 { close(signalDescriptor) }
    }

    // MARK: Registration (loop thread)

    public func watchReadable(_ descriptor: Int32, _ handler: @escaping () -> Void) throws {
        readHandlers[descriptor] = handler
        try add(descriptor: descriptor, events: EPOLLIN.rawValue)
    }

    /// Also calls `handler` when a descriptor given to ``watchReadable(_:_:)`` reports an error
    /// (EPOLLERR: a socket's pending error or error queue), after its read handler; until the
    /// handler takes the error, epoll keeps reporting it.
    public func watchErrors(_ descriptor: Int32, _ handler: @escaping () -> Void) {
        errorHandlers[descriptor] = handler
    }

    /// Adds or removes interest in writability (after a send found the socket buffer full).
    public func watchWritable(_ descriptor: Int32, _ handler: (() -> Void)?) {
        writeHandlers[descriptor] = handler
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | (handler == nil ? 0 : EPOLLOUT.rawValue)
        event.data.fd = descriptor
        _ = epoll_ctl(epoll, EPOLL_CTL_MOD, descriptor, &event)
    }

    /// Watches `descriptor` for `events` (level-triggered, as poll(2) would; errors and hang-ups
    /// are always reported): `handler` gets what is ready. For libraries that bring their own
    /// poll abstraction (Avahi's AvahiPoll), whose watches want readable, writable, both or none.
    public func watch(_ descriptor: Int32, for events: DescriptorEvents, _ handler: @escaping (DescriptorEvents) -> Void) throws {
        readinessHandlers[descriptor] = handler
        try add(descriptor: descriptor, events: events.rawValue)
    }

    /// Changes what a descriptor given to ``watch(_:for:_:)`` is watched for.
    public func rewatch(_ descriptor: Int32, for events: DescriptorEvents) {
        var event = epoll_event()
        event.events = events.rawValue
        event.data.fd = descriptor
        _ = epoll_ctl(epoll, EPOLL_CTL_MOD, descriptor, &event)
    }

    public func unwatch(_ descriptor: Int32) {
        readHandlers[descriptor] = nil
        writeHandlers[descriptor] = nil
        errorHandlers[descriptor] = nil
        readinessHandlers[descriptor] = nil
        _ = epoll_ctl(epoll, EPOLL_CTL_DEL, descriptor, nil)
    }

    /// `tick` runs after each batch of input; it returns its next deadline and whether it still
    /// has work that another tick round should see (events raised by another component).
    public func addTick(_ tick: @escaping () -> (deadline: MonotonicTime?, busy: Bool)) {
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
    public func schedule(at deadline: MonotonicTime, _ body: @escaping () -> Void) -> LoopTimerID {
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

    /// Looks at no descriptor before `until` (or the earliest deadline, if sooner): the next
    /// wait first sleeps, then takes everything that became ready meanwhile in one go. For a
    /// wake-up that brought only input asking nothing back (ACKs of what a server sent, a few at
    /// a time from many peers): those that follow are read together instead of one wake-up each.
    /// Everything else waits as long too, so `until` must be within what a reply may be late.
    public func pauseInput(until: MonotonicTime) {
        inputPausedUntil = max(inputPausedUntil ?? until, until)
    }

    /// Makes `run()` return after the current iteration (loop thread; other threads use the waker).
    public func stop() { stopped = true }

    // MARK: Running

    public func run() {
        stopped = false
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        var deadline = runTicks()
        while !stopped && !waker.isStopRequested {
            if let pause = inputPausedUntil {
                inputPausedUntil = nil
                sleep(until: min(pause, deadline ?? pause))
            }
            let count = events.withUnsafeMutableBufferPointer { wait(into: $0, until: deadline) }
            if count < 0 {
                if errno == EINTR { continue }
                break
            }
            for index in 0..<Int(count) {
                dispatch(events[index])
            }
            deadline = runTicks()
        }
    }

    /// Waits for events until `deadline` (nil: no deadline). The deadline is the wait's timeout,
    /// not a timerfd: a deadline that moves with every packet then costs no system call.
    private func wait(into events: UnsafeMutableBufferPointer<epoll_event>, until deadline: MonotonicTime?) -> Int32 {
        guard let deadline else { return epoll_wait(epoll, events.baseAddress, Int32(events.count), -1) }
        let remaining = deadline - MonotonicTime.now()
        if hasNanosecondWait {
            var timeout = timespec(tv_sec: Int(remaining.nanoseconds / 1_000_000_000), tv_nsec: Int(remaining.nanoseconds % 1_000_000_000))
            let count = epoll_pwait2(epoll, events.baseAddress, Int32(events.count), &timeout, nil)
            if count >= 0 || errno != ENOSYS { return count }
            hasNanosecondWait = false
        }
        let milliseconds = (remaining.nanoseconds + 999_999) / 1_000_000
        return epoll_wait(epoll, events.baseAddress, Int32(events.count), Int32(clamping: milliseconds))
    }

    private func sleep(until end: MonotonicTime) {
        var spec = timespec(tv_sec: Int(end.nanoseconds / 1_000_000_000), tv_nsec: Int(end.nanoseconds % 1_000_000_000))
        // An interruption (a signal) ends the pause early: the wait that follows sees it.
        _ = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &spec, nil)
    }

    private func dispatch(_ event: epoll_event) {
        let descriptor = event.data.fd
        if descriptor == waker.descriptor {
            waker.drain()
            for drain in channelDrains { drain() }
        } else if descriptor == signalDescriptor {
            var info = signalfd_siginfo()
            while read(signalDescriptor, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
                signalHandler?(Int32(info.ssi_signo))
            }
        } else if let handler = readinessHandlers[descriptor] {
            handler(DescriptorEvents(rawValue: event.events))
        } else {
            if event.events & EPOLLOUT.rawValue != 0, let handler = writeHandlers[descriptor] { handler() }
            if event.events & (EPOLLIN.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 { readHandlers[descriptor]?() }
            if event.events & EPOLLERR.rawValue != 0 { errorHandlers[descriptor]?() }
        }
    }

    /// Runs the due application timers and the tick handlers; returns the earliest deadline.
    private func runTicks() -> MonotonicTime? {
        for body in timers.takeDue(now: MonotonicTime.now()) { body() }
        var earliest: MonotonicTime?
        for _ in 0..<8 {
            var busy = false
            var ticksDeadline: MonotonicTime?
            for tick in ticks {
                let result = tick()
                if let deadline = result.deadline { ticksDeadline = min(ticksDeadline ?? deadline, deadline) }
                busy = busy || result.busy
            }
            // Read after the ticks: a timer a tick scheduled (a library's poll API arming a
            // timeout from inside an event it was handed) must bound this wait too.
            earliest = [timers.nextDeadline(), ticksDeadline].compactMap { $0 }.min()
            if !busy { break }
        }
        return earliest
    }

    private func add(descriptor: Int32, events: UInt32) throws {
        var event = epoll_event()
        event.events = events
        event.data.fd = descriptor
        try systemCall("epoll_ctl") { epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event) }
    }
}
