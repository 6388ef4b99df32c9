import TestSupport
import Foundation
import QuicIO
import QuicSimulation

/// A server endpoint and a client endpoint on real UDP sockets on 127.0.0.1, driven by one event
/// loop on a dedicated thread (never on Swift's cooperative pool).
final class LoopbackHarness {
    let loop: EventLoop
    let server: QuicDriver
    let client: QuicDriver
    let serverAddress: SocketAddress
    let clientAddress: SocketAddress
    let echo = EchoResponder()
    var onServerEvent: (QuicConnection, QuicEvent) -> Void = { _, _ in }
    var onClientEvent: (QuicConnection, QuicEvent) -> Void = { _, _ in }

    init(server configuration: QuicServerConfiguration = EngineFixtures.serverConfiguration()) throws {
        loop = try EventLoop()
        server = QuicDriver(loop: loop, endpoint: try QuicEndpoint(server: configuration, now: .now()))
        client = QuicDriver(loop: loop, endpoint: try QuicEndpoint(now: .now()))
        serverAddress = try server.bind(SocketAddress(host: "127.0.0.1", port: 0)!)
        clientAddress = try client.bind(SocketAddress(host: "127.0.0.1", port: 0)!)
        server.onEvent = { [unowned self] connection, event in
            echo.handle(event, on: connection)
            onServerEvent(connection, event)
        }
        client.onEvent = { [unowned self] connection, event in onClientEvent(connection, event) }
    }

    func connect(_ configuration: QuicConfiguration = EngineFixtures.clientConfiguration()) throws -> QuicConnection {
        try client.endpoint.connect(to: serverAddress, from: clientAddress, configuration: configuration, now: .now())
    }

    /// Runs the loop until `stop()` is called from a handler or `seconds` (scaled by `TestTime`)
    /// pass. Returns false on timeout.
    @discardableResult
    func run(seconds: Double) -> Bool {
        var timedOut = false
        let timer = loop.schedule(at: .now() + .milliseconds(UInt64(TestTime.scaled(seconds) * 1000))) { [unowned self] in
            timedOut = true
            loop.stop()
        }
        loop.run()
        loop.cancel(timer)
        return !timedOut
    }

    func stop() { loop.stop() }
}

