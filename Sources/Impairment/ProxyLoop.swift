/// The proxy's single thread of work: one poll loop over the listen socket, one upstream socket
/// per client, the request waker and the command input, with a timer heap for delayed packets.
/// All mutable proxy state lives here and is touched only from the thread inside `run()`.
final class ProxyLoop {
    /// Receive and release in bounded batches so one busy socket cannot starve the others.
    static let receiveBatchLimit = 64
    static let listenerBufferBytes: Int32 = 8 << 20
    static let upstreamBufferBytes: Int32 = 2 << 20

    let configuration: ProxyConfiguration
    let control: ProxyControl
    let listener: UDPSocket
    let startTime: Nanoseconds
    let output: (String) -> Void
    let log: (String) -> Void

    var pollSet = PollSet()
    /// Indexed by `TrafficDirection.rawValue`; an array so a direction mutates in place.
    var directions: [ImpairedDirection]
    var pending = DeadlineHeap<ScheduledPacket>()
    var blackholes: BlackholeSchedule
    /// Clients are only ever appended, so indices held by queued packets stay valid.
    var clients: [ClientSession] = []
    var clientIndexByAddress: [SocketAddress: Int] = [:]
    var clientIndexByUpstreamDescriptor: [Int32: Int] = [:]
    var loopbackCycle = LoopbackAddressCycle()
    var nextScheduledRebind: Nanoseconds?
    var rebinds = 0
    var loopWakeups = 0
    var waiters: [(condition: @Sendable (ProxyStatistics) -> Bool, deadline: Nanoseconds, reply: ReplySlot<ProxyStatistics?>)] = []
    var commandInput: Int32?
    var commandBuffer = CommandLineBuffer()
    var lastSendErrorLog: Nanoseconds = .min
    var stopping = false
    /// One buffer for every receive: packets released immediately are sent straight from it,
    /// only delayed ones are copied.
    let receiveBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 16)

    init(
        configuration: ProxyConfiguration, control: ProxyControl, listener: UDPSocket, commandInput: Int32?,
        output: @escaping (String) -> Void, log: @escaping (String) -> Void
    ) {
        self.configuration = configuration
        self.control = control
        self.listener = listener
        self.commandInput = commandInput
        self.output = output
        self.log = log
        startTime = MonotonicClock.now()
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
        pollSet.add(listener.descriptor)
        pollSet.add(control.waker.readDescriptor)
        if let commandInput { pollSet.add(commandInput) }
        while !stopping {
            let now = MonotonicClock.now()
            releaseDuePackets(now: now)
            runScheduledRebind(now: now)
            if !waiters.isEmpty { resolveWaiters(now: now) }
            if stopping { break }
            let ready: [Int32]
            do {
                ready = try pollSet.wait(timeoutMilliseconds: pollTimeout(now: MonotonicClock.now()))
            } catch {
                log("udp-impair: \(error); stopping")
                break
            }
            loopWakeups += 1
            for descriptor in ready { handleReadable(descriptor) }
        }
        return shutDown()
    }

    /// Milliseconds to the earliest deadline, rounded up so the loop never wakes early and
    /// spins; -1 (forever) when nothing is scheduled. Timing is therefore good to about 1 ms.
    private func pollTimeout(now: Nanoseconds) -> Int32 {
        var earliest = pending.earliestDeadline
        if let rebind = nextScheduledRebind { earliest = min(earliest ?? rebind, rebind) }
        for waiter in waiters { earliest = min(earliest ?? waiter.deadline, waiter.deadline) }
        guard let earliest else { return -1 }
        let milliseconds = (earliest - now + 999_999) / 1_000_000
        return Int32(clamping: max(0, milliseconds))
    }

    private func handleReadable(_ descriptor: Int32) {
        if descriptor == listener.descriptor {
            receiveFromClients()
        } else if descriptor == control.waker.readDescriptor {
            control.waker.drain()
            handleRequests()
            if control.isStopRequested || TerminationSignals.received != nil { stopping = true }
        } else if descriptor == commandInput {
            readCommands()
        } else if let clientIndex = clientIndexByUpstreamDescriptor[descriptor] {
            receiveFromServer(clientIndex: clientIndex)
        }
    }

    private func shutDown() -> ProxyStatistics {
        let final = snapshot(now: MonotonicClock.now())
        for request in control.close() {
            switch request {
            case .command(_, let reply): reply.fulfil("ERROR proxy stopped")
            case .statistics(_, _, let reply): reply.fulfil(nil)
            }
        }
        for waiter in waiters { waiter.reply.fulfil(nil) }
        waiters.removeAll()
        for client in clients { client.upstream.close() }
        listener.close()
        return final
    }

    func snapshot(now: Nanoseconds) -> ProxyStatistics {
        ProxyStatistics(
            seed: configuration.seed, uptime: now - startTime, listenAddress: listener.localAddress,
            serverAddress: configuration.serverAddress, up: directions[TrafficDirection.up.rawValue].statistics,
            down: directions[TrafficDirection.down.rawValue].statistics, clients: clients.map(\.statistics),
            rebinds: rebinds, loopWakeups: loopWakeups)
    }

    private func resolveWaiters(now: Nanoseconds) {
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
