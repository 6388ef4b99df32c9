import QuicIO
import TestSupport
import Testing

/// A client socket bound with `reportsUnreachable` reads the ICMP errors its packets caused
/// (IP_RECVERR): a port nobody listens on ends the client's connections to it at once, as
/// `.dropped`, instead of at the handshake or idle timeout. Real UDP on loopback.
@Suite("Engine: ICMP port unreachable", .serialized)
struct PortUnreachableTests {
    /// How a client connection to `host`:`port` ended within 15 s (nil: it had not), its
    /// handshake timeout 20 s.
    static func closeOfConnection(to host: String, port: UInt16, reportsUnreachable: Bool,
                                  handshakeTimeout: TimeSpan = .seconds(20)) throws -> QuicCloseReason? {
        let loop = try EventLoop()
        let client = QuicDriver(loop: loop, endpoint: try QuicEndpoint(now: .now()))
        let local = try client.bind(SocketAddress(host: host, port: 0)!, reportsUnreachable: reportsUnreachable)
        var closed: QuicCloseReason?
        client.onEvent = { _, event in
            if case .closed(let reason) = event {
                closed = reason
                loop.stop()
            }
        }
        var configuration = EngineFixtures.clientConfiguration()
        configuration.handshakeTimeout = handshakeTimeout
        _ = try client.endpoint.connect(to: SocketAddress(host: host, port: port)!, from: local, configuration: configuration, now: .now())
        let timer = loop.schedule(at: .now() + .seconds(15)) { loop.stop() }
        loop.run()
        loop.cancel(timer)
        return closed
    }

    /// IPv4 and IPv6: the handshake to a closed port ends on its first flight, `.dropped`, its
    /// reason naming the address.
    @Test(arguments: ["127.0.0.1", "::1"])
    func aHandshakeToAClosedPortEndsAtOnce(_ host: String) async throws {
        let port = try FreePort.udp()
        let reason = try await onDedicatedThread { try Self.closeOfConnection(to: host, port: port, reportsUnreachable: true) }
        #expect(reason?.kind == .dropped && reason?.reason.contains("ICMP port unreachable") == true, "\(String(describing: reason))")
    }

    /// Without the reports (servers never ask for them) nothing changes: the handshake times out.
    @Test func withoutReportsTheHandshakeTimesOut() async throws {
        let port = try FreePort.udp()
        let reason = try await onDedicatedThread {
            try Self.closeOfConnection(to: "127.0.0.1", port: port, reportsUnreachable: false, handshakeTimeout: .seconds(1))
        }
        #expect(reason?.kind == .handshakeTimeout, "\(String(describing: reason))")
    }

    /// An established connection whose server's socket closes (its process died) ends at the
    /// next packet the client sends, `.dropped`.
    @Test func anEstablishedConnectionEndsWhenItsServerIsGone() async throws {
        let reason = try await onDedicatedThread { () throws -> QuicCloseReason? in
            let loop = try EventLoop()
            let server = QuicDriver(loop: loop, endpoint: try QuicEndpoint(server: EngineFixtures.serverConfiguration(), now: .now()))
            let client = QuicDriver(loop: loop, endpoint: try QuicEndpoint(now: .now()))
            let serverAddress = try server.bind(SocketAddress(host: "127.0.0.1", port: 0)!)
            let clientAddress = try client.bind(SocketAddress(host: "127.0.0.1", port: 0)!, reportsUnreachable: true)
            var closed: QuicCloseReason?
            client.onEvent = { connection, event in
                switch event {
                case .handshakeCompleted:
                    // The server goes away; the client's next packet meets a closed port.
                    loop.schedule(at: .now() + .milliseconds(50)) {
                        server.unbind(serverAddress)
                        loop.schedule(at: .now() + .milliseconds(50)) {
                            let stream = try! connection.openStream()
                            _ = try? connection.write(Array("anyone there?".utf8), to: stream)
                        }
                    }
                case .closed(let reason):
                    closed = reason
                    loop.stop()
                default:
                    break
                }
            }
            _ = try client.endpoint.connect(to: serverAddress, from: clientAddress, configuration: EngineFixtures.clientConfiguration(),
                                            now: .now())
            let timer = loop.schedule(at: .now() + .seconds(15)) { loop.stop() }
            loop.run()
            loop.cancel(timer)
            return closed
        }
        #expect(reason?.kind == .dropped && reason?.reason.contains("ICMP port unreachable") == true, "\(String(describing: reason))")
    }
}
