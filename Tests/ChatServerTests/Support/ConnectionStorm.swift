import ChatClientKit
import ChatProtocol
import QuicIO
import TestSupport

/// A storm of connection attempts at a fixed rate: every `halfOpenEvery`th attempt sends a real
/// client's first Initial from a socket of its own and never says another word (a handshake that
/// never finishes); the others are chat clients that complete the handshake, join and quit. The
/// attempts go to the nodes of a cluster in turn (``ClusterMode``).
final class ConnectionStorm {
    struct Outcome: Sendable {
        var completed = 0
        var failed = 0
        var failures: [String: Int] = [:]
        var halfOpenPorts: [UInt16] = []
        var seconds = 0.0
    }

    private let loop: EventLoop
    private let pool: ChatSessionPool
    private let servers: [SocketAddress]
    private var probes: [UDPProbe] = []
    private var outcome = Outcome()
    /// Chat clients between connect and close, and attempts not yet started.
    private var pending = 0
    private var attemptsLeft = 0

    init(port: UInt16) throws {
        servers = ChatServerProcess.nodePorts(of: port).map { SocketAddress(host: "127.0.0.1", port: $0)! }
        loop = try EventLoop()
        var configuration = QuicConfiguration(tls: QuicTLSConfiguration(trustedCAPath: TestCertificates.ca, serverName: "localhost",
                                                                        alpn: ["qchat/1"]))
        // How long a client waits for a server busy with the storm is a wait like any other, and
        // what is checked is that every handshake completes, not how soon: on a loaded machine
        // (load average 12: two sanitized suites and builds beside it) 74 of 1,000 took longer
        // than the default 10 s. 30 s, stretched like every wait of the tests.
        configuration.handshakeTimeout = .milliseconds(UInt64(TestTime.scaled(30) * 1000))
        pool = try ChatSessionPool(driver: QuicDriver(loop: loop, endpoint: try QuicEndpoint(now: .now())),
                                   server: servers[0], configuration: configuration)
    }

    /// Runs the storm, giving up after `timeout` seconds (scaled by `TestTime`).
    func run(attempts: Int, over seconds: Double, halfOpenEvery: Int, timeout: Double = 60) throws -> Outcome {
        let start = MonotonicTime.now()
        let interval = TimeSpan(nanoseconds: UInt64(seconds * 1e9) / UInt64(attempts))
        var failure: (any Error)?
        attemptsLeft = attempts
        for index in 0..<attempts {
            loop.schedule(at: start + TimeSpan(nanoseconds: interval.nanoseconds * UInt64(index))) { [unowned self] in
                do {
                    if index % halfOpenEvery == halfOpenEvery - 1 { try openHalfway() } else { try connect(index) }
                } catch {
                    failure = error
                    loop.stop()
                }
                attemptsLeft -= 1
                if attemptsLeft == 0 { outcome.seconds = (MonotonicTime.now() - start).seconds }
                stopIfDone()
            }
        }
        loop.schedule(at: start + TimeSpan(nanoseconds: UInt64(TestTime.scaled(timeout) * 1e9))) { [unowned self] in loop.stop() }
        loop.run()
        if let failure { throw failure }
        return outcome
    }

    private func openHalfway() throws {
        let probe = try UDPProbe()
        probe.send(try GarbageMaker.realInitial(), to: servers[probes.count % servers.count].port)
        probes.append(probe)
        outcome.halfOpenPorts.append(probe.localPort)
    }

    private func connect(_ index: Int) throws {
        let session = try pool.connect(nick: "storm\(index)", room: "storm", to: servers[index % servers.count])
        pending += 1
        var joined = false
        session.onMessage = { [unowned self, unowned session] message, _ in
            guard !joined, message.type == "joined", message.sender == session.assignedNick else { return }
            joined = true
            outcome.completed += 1
            session.quit()
        }
        session.onClose = { [unowned self] reason in
            if !joined {
                outcome.failed += 1
                outcome.failures[reason.description, default: 0] += 1
            }
            pending -= 1
            stopIfDone()
        }
    }

    private func stopIfDone() {
        if pending == 0 && attemptsLeft == 0 { loop.stop() }
    }
}
