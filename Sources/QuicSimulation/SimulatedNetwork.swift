import QuicEngine
import SplitMix

/// Endpoints joined in memory by a link that can drop, delay, reorder and duplicate datagrams,
/// under a virtual clock. Nothing here sleeps: time jumps to the next delivery or timer.
public final class SimulatedNetwork {
    public struct Impairment: Sendable {
        public var loss = 0.0
        public var duplication = 0.0
        public var delay = TimeSpan.milliseconds(5)
        /// Extra random delay in [0, jitter): with jitter above the packet spacing, packets reorder.
        public var jitter = TimeSpan.zero
        public init(loss: Double = 0, duplication: Double = 0, delay: TimeSpan = .milliseconds(5), jitter: TimeSpan = .zero) {
            self.loss = loss
            self.duplication = duplication
            self.delay = delay
            self.jitter = jitter
        }
    }

    private struct Flight {
        var deliverAt: MonotonicTime
        var order: UInt64
        var bytes: [UInt8]
        var from: SocketAddress
        var to: SocketAddress
    }

    public private(set) var now: MonotonicTime
    public var impairment: Impairment
    /// Source rewriting at a NAT: datagrams from the key leave with the value as their source, and
    /// datagrams to the value are delivered to the key.
    public var rebinding: [SocketAddress: SocketAddress] = [:]
    public private(set) var delivered = 0
    public private(set) var dropped = 0
    public private(set) var duplicated = 0

    private var hosts: [SocketAddress: QuicEndpoint] = [:]
    private var endpoints: [QuicEndpoint] = []
    /// Endpoints whose timers do not run (``holdTimers(of:)``).
    private var heldTimers: Set<ObjectIdentifier> = []
    /// Datagrams still to drop per source (``drop(next:from:)``).
    private var plannedDrops: [SocketAddress: Int] = [:]
    private var flights: [Flight] = []
    private var order: UInt64 = 0
    private var random: SplitMix64
    private var buffer = [UInt8](repeating: 0, count: 64 * 1500)

    public init(impairment: Impairment = Impairment(), seed: UInt64 = 1, start: MonotonicTime = MonotonicTime(nanoseconds: 1_000_000_000)) {
        self.impairment = impairment
        self.random = SplitMix64(seed: seed)
        self.now = start
    }

    /// Makes `endpoint` reachable at `address` (an endpoint may own several addresses).
    public func attach(_ endpoint: QuicEndpoint, at address: SocketAddress) {
        hosts[address] = endpoint
        if !endpoints.contains(where: { $0 === endpoint }) { endpoints.append(endpoint) }
    }

    /// Stops running `endpoint`'s timers until ``releaseTimers(of:)``: what it sends from then on
    /// is what it writes when a datagram arrives or its application acts, so a test can show that
    /// a frame leaves without waiting for a timer (an ACK delay, a loss timer).
    public func holdTimers(of endpoint: QuicEndpoint) {
        heldTimers.insert(ObjectIdentifier(endpoint))
    }

    public func releaseTimers(of endpoint: QuicEndpoint) {
        heldTimers.remove(ObjectIdentifier(endpoint))
    }

    /// Drops the next `count` datagrams sent from `source`, whatever the impairment says.
    public func drop(next count: Int, from source: SocketAddress) {
        plannedDrops[source, default: 0] += count
    }

    /// Moves packets and time until `done` returns true or `limit` of virtual time has passed.
    /// `onEvent` sees every event of every endpoint. Returns whether `done` became true.
    @discardableResult
    public func run(for limit: TimeSpan, until done: () -> Bool = { false },
                    onEvent: (QuicEndpoint, QuicConnection, QuicEvent) -> Void = { _, _, _ in }) -> Bool {
        let end = now + limit
        while true {
            drainEvents(onEvent)
            transmitAll()
            drainEvents(onEvent)
            if done() { return true }
            guard let next = nextInstant(), next <= end else {
                now = max(now, end)
                advanceClocks()
                return done()
            }
            // A real clock never stands still between two looks at it. ngtcp2 0.12.1 sets some
            // timers to fire at exactly `t` but acts on them only after `t`, so a virtual clock
            // that stayed at `t` would spin.
            now = max(now + .microseconds(1), next)
            advanceClocks()
            deliverDue()
            for endpoint in endpoints where !heldTimers.contains(ObjectIdentifier(endpoint)) {
                if let deadline = endpoint.nextTimeout, deadline <= now { endpoint.handleTimeout(now: now) }
            }
        }
    }

    /// Every endpoint sees the time move, as a driver's loop tells its endpoint on every turn.
    private func advanceClocks() {
        for endpoint in endpoints { endpoint.advance(to: now) }
    }

    private func drainEvents(_ onEvent: (QuicEndpoint, QuicConnection, QuicEvent) -> Void) {
        for endpoint in endpoints {
            while let (connection, event) = endpoint.pollEvent() { onEvent(endpoint, connection, event) }
        }
    }

    private func transmitAll() {
        for endpoint in endpoints {
            while let batch = buffer.withUnsafeMutableBytes({ endpoint.pollTransmit(into: $0, maxSegments: 16, now: now) }) {
                var offset = 0
                while offset < batch.byteCount {
                    let size = min(batch.segmentSize, batch.byteCount - offset)
                    send(Array(buffer[offset..<offset + size]), from: batch.source, to: batch.destination)
                    offset += size
                }
            }
        }
    }

    private func send(_ bytes: [UInt8], from: SocketAddress, to: SocketAddress) {
        if let planned = plannedDrops[from], planned > 0 {
            plannedDrops[from] = planned - 1
            dropped += 1
            return
        }
        if random.nextDouble() < impairment.loss {
            dropped += 1
            return
        }
        let source = rebinding[from] ?? from
        let copies = random.nextDouble() < impairment.duplication ? 2 : 1
        if copies == 2 { duplicated += 1 }
        for _ in 0..<copies {
            var delay = impairment.delay
            if impairment.jitter.nanoseconds > 0 {
                delay = delay + TimeSpan(nanoseconds: random.next() % impairment.jitter.nanoseconds)
            }
            order += 1
            insert(Flight(deliverAt: now + delay, order: order, bytes: bytes, from: source, to: to))
        }
    }

    private func insert(_ flight: Flight) {
        // Sorted by arrival; most inserts land at the end.
        var index = flights.count
        while index > 0 && (flights[index - 1].deliverAt, flights[index - 1].order) > (flight.deliverAt, flight.order) { index -= 1 }
        flights.insert(flight, at: index)
    }

    private func nextInstant() -> MonotonicTime? {
        var next = flights.first?.deliverAt
        for endpoint in endpoints where !heldTimers.contains(ObjectIdentifier(endpoint)) {
            if let deadline = endpoint.nextTimeout { next = min(next ?? deadline, deadline) }
        }
        return next
    }

    private func deliverDue() {
        var index = 0
        while index < flights.count && flights[index].deliverAt <= now { index += 1 }
        let due = flights[..<index]
        flights.removeFirst(index)
        for flight in due {
            let destination = rebinding.first(where: { $0.value == flight.to })?.key ?? flight.to
            guard let endpoint = hosts[destination] else { continue }
            delivered += 1
            endpoint.receive(flight.bytes, from: flight.from, to: destination, now: now)
        }
    }
}

