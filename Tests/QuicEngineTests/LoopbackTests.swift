import TestSupport
import Foundation
import Glibc
import QuicIO
import QuicSimulation
import Testing

/// Real UDP on 127.0.0.1, real TLS with certificates made for the run.
@Suite("Engine on loopback UDP", .serialized)
struct LoopbackTests {
    /// Outcome of one client's echo exchange.
    struct EchoOutcome: Sendable {
        var streamsOK = 0
        var datagramsEchoed = 0
        var failures: [String] = []
    }

    /// 100 clients at once each echo 20 KB on a stream and a datagram through one server.
    @Test func hundredConcurrentClientsEcho() async throws {
        let outcome = try await onDedicatedThread { () throws -> EchoOutcome in
            let harness = try LoopbackHarness()
            var outcome = EchoOutcome()
            let payload = EngineFixtures.payload(count: 20_000)
            var received: [UInt64: [UInt8]] = [:]
            var datagramSeen: Set<UInt64> = []
            var finished = 0
            harness.onClientEvent = { [unowned harness] connection, event in
                switch event {
                case .handshakeCompleted:
                    let stream = try! connection.openStream()
                    try! connection.write(payload, to: stream, fin: true)
                    try! connection.sendDatagram(Array("ping-\(connection.id)".utf8))
                case .streamData(_, let bytes, let fin):
                    received[connection.id, default: []] += bytes
                    if fin {
                        if received[connection.id] == payload { outcome.streamsOK += 1 }
                        finished += 1
                        if finished == 100 { harness.loop.schedule(at: .now() + .milliseconds(300)) { harness.stop() } }
                    }
                case .datagram(let bytes):
                    if bytes == Array("ping-\(connection.id)".utf8) { datagramSeen.insert(connection.id) }
                case .closed(let reason):
                    outcome.failures.append(reason.description)
                default: break
                }
            }
            for _ in 0..<100 { _ = try harness.connect() }
            harness.run(seconds: 30)
            outcome.datagramsEchoed = datagramSeen.count
            return outcome
        }
        #expect(outcome.failures.isEmpty)
        #expect(outcome.streamsOK == 100)
        // Datagrams are best effort; on an idle loopback essentially all of them arrive.
        #expect(outcome.datagramsEchoed >= 95)
    }

    /// Connects once and returns how it ended: the close reason, or nil when the handshake completed.
    private func handshakeOutcome(server: QuicServerConfiguration = EngineFixtures.serverConfiguration(),
                                  client: QuicConfiguration) async throws -> (established: Bool, reason: QuicCloseReason?, serverSaw: String?) {
        try await onDedicatedThread {
            let harness = try LoopbackHarness(server: server)
            var established = false
            var reason: QuicCloseReason?
            var subject: String?
            // Done when both sides have seen the handshake complete (the server's side comes with
            // the client's Finished, after the client's), or when the client is closed.
            harness.onServerEvent = { [unowned harness] connection, event in
                if case .handshakeCompleted = event {
                    subject = connection.peerCertificateSubject ?? "none"
                    if established { harness.stop() }
                }
            }
            harness.onClientEvent = { [unowned harness] connection, event in
                switch event {
                case .handshakeCompleted:
                    established = true
                    if subject != nil { harness.stop() }
                case .closed(let why):
                    reason = why
                    harness.stop()
                default: break
                }
            }
            _ = try harness.connect(client)
            harness.run(seconds: 10)
            return (established, reason, subject)
        }
    }

    /// A client closing the moment its handshake completes is seen closing by the server at once
    /// (no connection lingers until a timeout).
    @Test func closeRightAfterHandshakeFreesServerConnection() async throws {
        let (closedOnServer, remaining) = try await onDedicatedThread { () throws -> (Int, Int) in
            let harness = try LoopbackHarness()
            var closed = 0
            harness.onServerEvent = { _, event in
                guard case .closed = event else { return }
                closed += 1
            }
            // The endpoint lets go of a connection once its closing period (three PTOs, a few
            // milliseconds here) is over: look every 10 ms, all checks scheduled at once.
            let start = MonotonicTime.now()
            for tick in 1...2000 {
                _ = harness.loop.schedule(at: start + .milliseconds(UInt64(10 * tick))) { [unowned harness] in
                    if closed == 20 && harness.server.endpoint.connectionCount == 0 { harness.stop() }
                }
            }
            harness.onClientEvent = { connection, event in
                if case .handshakeCompleted = event { connection.close(applicationCode: 0) }
            }
            for _ in 0..<20 { _ = try harness.connect() }
            // Well below the 30 s idle timeout even scaled for the sanitizers (x3).
            harness.run(seconds: 5)
            return (closed, harness.server.endpoint.connectionCount)
        }
        #expect(closedOnServer == 20)
        #expect(remaining == 0)
    }

    /// A server certificate from a CA the client does not trust ends the handshake, naming why.
    @Test func wrongCAIsRejected() async throws {
        let result = try await handshakeOutcome(client: EngineFixtures.clientConfiguration(ca: TestCertificates.otherCA))
        #expect(!result.established)
        #expect(result.reason?.kind == .tlsFailure(alert: 42))
        #expect(result.reason?.reason.contains("issuer is unknown") == true)
    }

    /// A certificate for another host name is rejected even though its CA is trusted.
    @Test func hostNameMismatchIsRejected() async throws {
        let result = try await handshakeOutcome(client: EngineFixtures.clientConfiguration(serverName: "chat.example.org"))
        #expect(!result.established)
        #expect(result.reason?.reason.contains("does not match") == true)
    }

    /// The IP address SAN verifies when the client connects by address.
    @Test func ipAddressNameVerifies() async throws {
        let result = try await handshakeOutcome(client: EngineFixtures.clientConfiguration(serverName: "127.0.0.1"))
        #expect(result.established)
    }

    /// Mutual TLS: a client certificate from the trusted CA is accepted and its subject is seen.
    @Test func mutualTLSAcceptsGoodClientCertificate() async throws {
        var client = EngineFixtures.clientConfiguration()
        client.tls.certificateChainPath = TestCertificates.clientCertificate
        client.tls.privateKeyPath = TestCertificates.clientKey
        let result = try await handshakeOutcome(server: EngineFixtures.serverConfiguration(requireClientCertificates: true), client: client)
        #expect(result.established)
        #expect(result.serverSaw?.contains("CN=alice") == true)
    }

    /// Mutual TLS: a client without a certificate is refused.
    @Test func mutualTLSRefusesClientWithoutCertificate() async throws {
        let result = try await handshakeOutcome(server: EngineFixtures.serverConfiguration(requireClientCertificates: true),
                                                client: EngineFixtures.clientConfiguration())
        #expect(result.reason != nil)
        #expect(result.serverSaw == nil)
    }

    /// With Retry on, a client proves its address first and then connects normally.
    @Test func retryValidatesAddressFirst() async throws {
        let usedRetry = try await onDedicatedThread { () throws -> Bool in
            var configuration = EngineFixtures.serverConfiguration()
            configuration.requireRetry = true
            let harness = try LoopbackHarness(server: configuration)
            var retried = false
            harness.onClientEvent = { [unowned harness] connection, event in
                if case .handshakeCompleted = event {
                    retried = connection.usedRetry
                    harness.stop()
                }
            }
            _ = try harness.connect()
            #expect(harness.run(seconds: 10))
            #expect(harness.server.endpoint.statistics.retriesSent == 1)
            return retried
        }
        #expect(usedRetry)
    }

    /// With `retryAboveHandshakes` 3, a client is asked to Retry only once 3 handshakes (here:
    /// real Initials never followed up) are in progress; below that it connects directly.
    @Test(arguments: [(silent: 2, retried: false), (silent: 3, retried: true)])
    func retryOnlyAboveHandshakesInProgress(_ expected: (silent: Int, retried: Bool)) async throws {
        let result = try await onDedicatedThread { () throws -> (retried: Bool, inProgress: Int, retries: Int) in
            var configuration = EngineFixtures.serverConfiguration()
            configuration.retryAboveHandshakes = 3
            let harness = try LoopbackHarness(server: configuration)
            // Sent before the client's first datagram, so the server reads them first.
            let silent = try (0..<expected.silent).map { _ in try UDPProbe() }
            for probe in silent { probe.send(try GarbageMaker.realInitial(alpn: [EngineFixtures.alpn]), to: harness.serverAddress.port) }
            var retried = false
            // Done once the server, too, has seen the client's handshake complete.
            func stopWhenServerDone(_ harness: LoopbackHarness) {
                if harness.server.endpoint.handshakesInProgress == expected.silent { return harness.stop() }
                harness.loop.schedule(at: .now() + .milliseconds(5)) { [unowned harness] in stopWhenServerDone(harness) }
            }
            harness.onClientEvent = { [unowned harness] connection, event in
                if case .handshakeCompleted = event {
                    retried = connection.usedRetry
                    stopWhenServerDone(harness)
                }
            }
            _ = try harness.connect()
            #expect(harness.run(seconds: 10))
            _ = silent
            return (retried, harness.server.endpoint.handshakesInProgress, harness.server.endpoint.statistics.retriesSent)
        }
        #expect(result.retried == expected.retried)
        #expect(result.retries == (expected.retried ? 1 : 0))
        #expect(result.inProgress == expected.silent)
    }

    /// 10,000 garbage datagrams at the server port (random bytes, truncated, forged and corrupted
    /// Initials, unknown versions, empty ones) disturb no live connection, and the server keeps
    /// count of them.
    @Test func garbageDoesNotDisturbLiveConnections() async throws {
        let result = try await onDedicatedThread { () throws -> (echoes: Int, garbageSeen: Int, closed: Int, accepted: Int, dropped: Int) in
            let harness = try LoopbackHarness()
            var echoes = 0
            var closed = 0
            var connection: QuicConnection?
            var stream: QuicStreamID = -1
            var round = 0
            let garbage = try GarbageSender(target: harness.serverAddress)
            func nextRound(_ connection: QuicConnection) {
                round += 1
                garbage.send(count: 1000, seed: UInt64(round))
                let line = Array("round \(round)\n".utf8)
                #expect((try? connection.write(line, to: stream)) == line.count)
            }
            harness.onClientEvent = { [unowned harness] conn, event in
                switch event {
                case .handshakeCompleted:
                    connection = conn
                    stream = try! conn.openStream()
                    nextRound(conn)
                case .streamData:
                    echoes += 1
                    if round < 10 { nextRound(conn) } else { harness.stop() }
                case .closed:
                    closed += 1
                default: break
                }
            }
            _ = try harness.connect()
            harness.run(seconds: 30)
            _ = connection
            let statistics = harness.server.endpoint.statistics
            return (echoes, statistics.datagramsReceived, closed, statistics.connectionsAccepted, statistics.initialsDropped)
        }
        #expect(result.closed == 0)
        // Forged and corrupted Initials are dropped on their first datagram, never accepted.
        #expect(result.accepted == 1)
        #expect(result.dropped >= 2 * 10_000 / GarbageMaker.Kind.allCases.count)
        #expect(result.echoes >= 10)
        #expect(result.garbageSeen >= 10_000)
    }
}

/// Sends malformed datagrams of every kind from a plain UDP socket.
final class GarbageSender {
    private let probe: UDPProbe
    private let port: UInt16
    private let realInitial: [UInt8]

    init(target address: SocketAddress) throws {
        probe = try UDPProbe()
        port = address.port
        realInitial = try GarbageMaker.realInitial()
    }

    func send(count: Int, seed: UInt64) {
        var maker = GarbageMaker(seed: seed, realInitial: realInitial)
        for index in 0..<count { probe.send(maker.make(index: index), to: port) }
    }
}

@Suite("Engine on loopback: IPv6 and wake-ups", .serialized)
struct LoopbackExtraTests {
    /// Handshake and stream echo over IPv6 loopback (::1), verifying the ::1 IP SAN.
    @Test func ipv6Echo() async throws {
        let echoed = try await onDedicatedThread { () throws -> [UInt8] in
            let loop = try EventLoop()
            let server = QuicDriver(loop: loop, endpoint: try QuicEndpoint(server: EngineFixtures.serverConfiguration(), now: .now()))
            let client = QuicDriver(loop: loop, endpoint: try QuicEndpoint(now: .now()))
            let serverAddress = try server.bind(SocketAddress(host: "::1", port: 0)!)
            let clientAddress = try client.bind(SocketAddress(host: "::1", port: 0)!)
            let echo = EchoResponder()
            server.onEvent = { connection, event in echo.handle(event, on: connection) }
            var received: [UInt8] = []
            client.onEvent = { connection, event in
                switch event {
                case .handshakeCompleted:
                    let stream = try! connection.openStream()
                    try! connection.write(Array("over v6".utf8), to: stream, fin: true)
                case .streamData(_, let bytes, let fin):
                    received += bytes
                    if fin { loop.stop() }
                default: break
                }
            }
            _ = try client.endpoint.connect(to: serverAddress, from: clientAddress,
                                            configuration: EngineFixtures.clientConfiguration(serverName: "::1"), now: .now())
            let timer = loop.schedule(at: .now() + .seconds(10)) { loop.stop() }
            loop.run()
            loop.cancel(timer)
            return received
        }
        #expect(echoed == Array("over v6".utf8))
    }

    /// A write made on the loop after 1.5 s without traffic (as a chat client's first keystroke
    /// is) is stamped with the current time by the driver: the RTT sample of its ACK is the
    /// loopback's, not the idle gap's (issue 11 item 8).
    @Test func writeAfterIdleGapGivesLoopbackRTT() async throws {
        let rtt = try await onDedicatedThread { () throws -> (latest: TimeSpan, smoothed: TimeSpan)? in
            let harness = try LoopbackHarness()
            var measured: (latest: TimeSpan, smoothed: TimeSpan)?
            var stream: QuicStreamID = -1
            harness.onClientEvent = { [unowned harness] connection, event in
                switch event {
                case .handshakeCompleted:
                    _ = harness.loop.schedule(at: .now() + .milliseconds(1500)) {
                        stream = try! connection.openStream()
                        _ = try? connection.write(Array("typed after a pause".utf8), to: stream)
                    }
                case .streamData(stream, _, _):
                    let statistics = connection.statistics
                    measured = (statistics.latestRTT, statistics.smoothedRTT)
                    harness.stop()
                default: break
                }
            }
            let connection = try harness.connect()
            harness.run(seconds: 10)
            _ = connection
            return measured
        }
        let measured = try #require(rtt)
        #expect(measured.latest < .milliseconds(200), "latest RTT \(measured.latest) on loopback after a 1.5 s gap")
        #expect(measured.smoothed < .milliseconds(200), "smoothed RTT \(measured.smoothed)")
    }

    /// Messages sent on a loop channel from other threads wake the loop and arrive on it, in order.
    @Test func channelWakesLoopFromAnotherThread() async throws {
        let received = try await onDedicatedThread { () throws -> [Int] in
            let loop = try EventLoop()
            var received: [Int] = []
            let channel = loop.makeChannel { [unowned loop] (value: Int) in
                received.append(value)
                if received.count == 100 { loop.stop() }
            }
            let sender = Thread {
                for value in 0..<100 { channel.send(value) }
            }
            sender.start()
            let timer = loop.schedule(at: .now() + .seconds(10)) { loop.stop() }
            loop.run()
            loop.cancel(timer)
            return received
        }
        #expect(received == Array(0..<100))
    }
}
