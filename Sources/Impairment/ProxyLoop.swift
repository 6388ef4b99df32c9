import EventRuntime
import Glibc

/// The proxy's single thread of work: the runtime's event loop over the listen socket, one
/// upstream socket per client, the request waker and the command input, with the runtime's
/// deadline heap for delayed packets. All mutable proxy state lives here and is touched only
/// from the thread inside `run()`.
final class ProxyLoop {
    /// Receive and release in bounded batches so one busy socket cannot starve the others.
    static let receiveBatchLimit = 64
    static let listenerBufferBytes: Int32 = 8 << 20
    static let upstreamBufferBytes: Int32 = 2 << 20

    let configuration: ProxyConfiguration
    let control: ProxyControl
    let listener: UDPSocket
    let stopsOnTerminationSignals: Bool
    let startTime: MonotonicTime
    let output: (String) -> Void
    let log: (String) -> Void

    /// Set for the duration of `run()`.
    var loop: EventLoop?
    /// Indexed by `TrafficDirection.rawValue`; an array so a direction mutates in place.
    var directions: [ImpairedDirection]
    var pending = DeadlineHeap<ScheduledPacket>()
    var blackholes: BlackholeSchedule
    /// Clients are only ever appended, so indices held by queued packets stay valid.
    var clients: [ClientSession] = []
    var clientIndexByAddress: [SocketAddress: Int] = [:]
    var loopbackCycle = LoopbackAddressCycle()
    var nextScheduledRebind: MonotonicTime?
    var rebinds = 0
    var loopWakeups = 0
    var waiters: [(condition: @Sendable (ProxyStatistics) -> Bool, deadline: MonotonicTime, reply: ReplySlot<ProxyStatistics?>)] = []
    var commandInput: Int32?
    /// The command input is a regular file or /dev/null, which epoll refuses: always readable,
    /// so it is read a chunk per loop turn instead.
    var commandInputIsPolled = false
    var commandBuffer = CommandLineBuffer()
    var lastSendErrorLog: MonotonicTime?
    var stopping = false
    /// One buffer for every receive: packets released immediately are sent straight from it,
    /// only delayed ones are copied.
    let receiveBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 16)

    init(
        configuration: ProxyConfiguration, control: ProxyControl, listener: UDPSocket, commandInput: Int32?,
        stopsOnTerminationSignals: Bool, output: @escaping (String) -> Void, log: @escaping (String) -> Void
    ) {
        self.configuration = configuration
        self.control = control
        self.listener = listener
        self.commandInput = commandInput
        self.stopsOnTerminationSignals = stopsOnTerminationSignals
        self.output = output
        self.log = log
        startTime = MonotonicTime.now()
        directions = [
            ImpairedDirection(profile: configuration.up, seed: configuration.seed, direction: .up),
            ImpairedDirection(profile: configuration.down, seed: configuration.seed, direction: .down),
        ]
        blackholes = BlackholeSchedule(configuration.blackholes)
        nextScheduledRebind = configuration.rebindInterval.map { startTime + $0 }
    }

    deinit {
        receiveBuffer.deallocate()
    }

    /// Runs until stopped; closes every socket (the listener included) and returns final statistics.
    func run() -> ProxyStatistics {
        do {
            let loop = try EventLoop(waker: control.waker)
            self.loop = loop
            try loop.watchReadable(listener.descriptor) { [unowned self] in receiveFromClients() }
            if let commandInput { watchCommands(commandInput, on: loop) }
            if stopsOnTerminationSignals {
                try loop.handleSignals([SIGINT, SIGTERM]) { [unowned self] _ in stop() }
            }
            loop.addTick { [unowned self] in tick() }
            loop.run()
        } catch {
            log("udp-impair: \(error); stopping")
        }
        return shutDown()
    }

    /// After every wake-up (and before the first wait): requests from other threads, packets
    /// whose time has come, the rebind schedule and the statistics waiters; the earliest of their
    /// deadlines bounds the loop's next wait.
    private func tick() -> (deadline: MonotonicTime?, busy: Bool) {
        loopWakeups += 1
        handleRequests()
        let now = MonotonicTime.now()
        releaseDuePackets(now: now)
        runScheduledRebind(now: now)
        if !waiters.isEmpty { resolveWaiters(now: now) }
        if stopping { loop?.stop() }
        var earliest = pending.earliestDeadline
        if let rebind = nextScheduledRebind { earliest = min(earliest ?? rebind, rebind) }
        for waiter in waiters { earliest = min(earliest ?? waiter.deadline, waiter.deadline) }
        return (earliest, false)
    }

    /// Ends `run()` after the current turn (loop thread).
    func stop() {
        stopping = true
        loop?.stop()
    }

    private func shutDown() -> ProxyStatistics {
        let final = snapshot(now: MonotonicTime.now())
        for request in control.close() {
            switch request {
            case .command(_, let reply): reply.fulfil("ERROR proxy stopped")
            case .statistics(_, _, let reply): reply.fulfil(nil)
            }
        }
        for waiter in waiters { waiter.reply.fulfil(nil) }
        waiters.removeAll()
        for client in clients {
            loop?.unwatch(client.upstream.descriptor)
            client.upstream.close()
        }
        loop?.unwatch(listener.descriptor)
        listener.close()
        loop = nil
        return final
    }

    func snapshot(now: MonotonicTime) -> ProxyStatistics {
        ProxyStatistics(
            seed: configuration.seed, uptime: now - startTime, listenAddress: listener.localAddress,
            serverAddress: configuration.serverAddress, up: directions[TrafficDirection.up.rawValue].statistics,
            down: directions[TrafficDirection.down.rawValue].statistics, clients: clients.map(\.statistics),
            rebinds: rebinds, loopWakeups: loopWakeups)
    }

    private func resolveWaiters(now: MonotonicTime) {
        let current = snapshot(now: now)
        waiters.removeAll { waiter in
            if waiter.condition(current) {
                waiter.reply.fulfil(current)
                return true
            }
            if now >= waiter.deadline {
                waiter.reply.fulfil(nil)
                return true
            }
            return false
        }
    }
}
