import Foundation
import Prometheus
import EventRuntime
import Testing
import TestSupport

/// The metrics endpoint's slots in process, where a test can make its page as large as it likes.
@Suite("metrics endpoint: slots", .serialized)
struct MetricsEndpointSlotTests {
    /// An endpoint on a loop of its own thread, until ``stop()``.
    private final class EndpointThread: @unchecked Sendable {
        private(set) var port: UInt16 = 0
        private var waker: LoopWaker?
        private let started = DispatchSemaphore(value: 0)
        private let finished = DispatchSemaphore(value: 0)

        init(limits: MetricsEndpointLimits, page: @escaping @Sendable () -> [UInt8]) {
            Thread { [self] in
                let loop = try! EventLoop()
                let endpoint = try! MetricsEndpoint(loop: loop, address: SocketAddress(host: "127.0.0.1", port: 0)!, limits: limits, page: page)
                port = endpoint.localAddress.port
                waker = loop.waker
                started.signal()
                withExtendedLifetime(endpoint) { loop.run() }
                finished.signal()
            }.start()
            started.wait()
        }

        func stop() {
            waker?.requestStop()
            finished.wait()
        }
    }

    /// With every slot having its answer written (three scrapers asked for a 32 MiB page and read
    /// none of it, so each answer waits on a full socket), nobody can be displaced: a fourth
    /// connection is answered 503 and closed at once, the limit holds.
    @Test func everySlotBusyAnsweringRefusesTheNextWith503() throws {
        let page = [UInt8](repeating: UInt8(ascii: "a"), count: 32 << 20)
        let server = EndpointThread(limits: MetricsEndpointLimits(maxConnections: 3, timeout: .seconds(60))) { page }
        defer { server.stop() }
        let holders = try (0..<3).map { _ in try HTTPProbe(port: server.port) }
        for holder in holders {
            try holder.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(holder.hasAnswerStarted(within: 10))
        }
        let refused = try HTTPProbe.get(port: server.port)
        #expect(refused.status == 503)
    }
}
