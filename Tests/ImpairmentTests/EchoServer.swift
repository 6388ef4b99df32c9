import Dispatch
import EventRuntime
import Foundation
import Impairment
import Synchronization
import TestSupport

/// A plain UDP echo server on its own thread, standing in for the QUIC server. It records every
/// datagram (bytes, source, arrival time) and answers each with the same bytes repeated
/// `amplification` times, so tests can also play an amplifying server.
final class EchoServer: Sendable {
    struct Arrival: Sendable {
        var bytes: [UInt8]
        var source: SocketAddress
        var time: ContinuousClock.Instant
    }

    /// What the serving thread shares with the tests; a separate object so that the thread does
    /// not keep the server alive and `deinit` can stop it.
    private final class Shared: Sendable {
        let socket: UDPSocket
        let arrivals = LockedValue<[Arrival]>([])
        let arrived = DispatchSemaphore(value: 0)
        let stopRequested = Atomic<Bool>(false)
        let finished = DispatchSemaphore(value: 0)

        init(socket: UDPSocket) { self.socket = socket }

        func serve(amplification: Int) {
            while !stopRequested.load(ordering: .acquiring) {
                // A short timeout so that a stop is noticed; this is the thread's idle wait, not
                // a synchronisation delay.
                guard let (bytes, source) = try? socket.receive(timeout: 0.05) else { continue }
                arrivals.withLock { $0.append(Arrival(bytes: bytes, source: source, time: .now)) }
                arrived.signal()
                let reply = Array([[UInt8]](repeating: bytes, count: amplification).joined())
                _ = try? socket.send(reply, to: source)
            }
            finished.signal()
        }
    }

    let address: SocketAddress
    private let shared: Shared

    init(amplification: Int = 1) throws {
        // Past the system's default buffer (tests run with CAP_NET_ADMIN): a burst of thousands
        // of delayed packets released at once otherwise overflowed it while a sanitized echo
        // thread was still reading.
        let socket = try UDPSocket(bindingTo: .loopback(1), overridingSystemLimit: true)
        address = socket.localAddress
        let shared = Shared(socket: socket)
        self.shared = shared
        Thread { shared.serve(amplification: amplification) }.start()
    }

    deinit {
        shared.stopRequested.store(true, ordering: .releasing)
        // Close only once the serving thread has stopped using the socket.
        if shared.finished.wait(timeout: .now() + 2) == .success { shared.socket.close() }
    }

    var received: [Arrival] { shared.arrivals.withLock { $0 } }

    /// Distinct source addresses in order of first appearance.
    var sources: [SocketAddress] {
        var seen: [SocketAddress] = []
        for arrival in received where !seen.contains(arrival.source) { seen.append(arrival.source) }
        return seen
    }

    /// Waits until at least `count` datagrams have arrived; false on timeout.
    @discardableResult
    /// Waits for `count` packets, up to `timeout` seconds stretched like every wait of the tests.
    func waitForPackets(_ count: Int, timeout: Double) -> Bool {
        let deadline = DispatchTime.now() + TestTime.scaled(timeout)
        while received.count < count {
            if shared.arrived.wait(timeout: deadline) == .timedOut { return received.count >= count }
        }
        return true
    }
}
