import TestSupport
import QuicEngine
import QuicSimulation

/// A client endpoint and a server endpoint joined by a simulated link, with an echo server
/// (stream bytes and datagrams come back unchanged) unless a test takes the server's events itself.
final class EnginePair {
    let network: SimulatedNetwork
    let server: QuicEndpoint
    let client: QuicEndpoint
    let connection: QuicConnection
    var echo = true
    /// Runs between the simulation's steps (a test keeping a connection busy, say).
    var eachStep: () -> Void = {}
    private(set) var serverEvents: [QuicEvent] = []
    private(set) var clientEvents: [QuicEvent] = []
    private(set) var serverConnections: [QuicConnection] = []

    init(impairment: SimulatedNetwork.Impairment = .init(), seed: UInt64 = 1,
         serverConfiguration: QuicServerConfiguration = EngineFixtures.serverConfiguration(),
         clientConfiguration: QuicConfiguration = EngineFixtures.clientConfiguration()) throws {
        network = SimulatedNetwork(impairment: impairment, seed: seed)
        server = try QuicEndpoint(server: serverConfiguration, now: network.now)
        client = try QuicEndpoint(now: network.now)
        network.attach(server, at: EngineFixtures.serverAddress)
        network.attach(client, at: EngineFixtures.clientAddress)
        connection = try client.connect(to: EngineFixtures.serverAddress, from: EngineFixtures.clientAddress,
                                        configuration: clientConfiguration, now: network.now)
    }

    /// Runs the network, recording events and echoing on the server, until `done` or `limit`.
    @discardableResult
    func run(for limit: TimeSpan = .seconds(60), until done: () -> Bool = { false },
             client onClient: (QuicConnection, QuicEvent) -> Void = { _, _ in },
             server onServer: (QuicConnection, QuicEvent) -> Void = { _, _ in }) -> Bool {
        network.run(for: limit, until: { eachStep(); return done() }) { endpoint, connection, event in
            if endpoint === server {
                serverEvents.append(event)
                if case .accepted = event { serverConnections.append(connection) }
                if echo { echoer.handle(event, on: connection) }
                onServer(connection, event)
            } else {
                clientEvents.append(event)
                onClient(connection, event)
            }
        }
    }

    func handshake() -> Bool {
        run(for: .seconds(5), until: { connection.isEstablished && serverConnections.first?.isEstablished == true })
    }

    private let echoer = EchoResponder()

    var clientCloseReason: QuicCloseReason? { connection.closeReason }
    var serverCloseReason: QuicCloseReason? { serverConnections.first?.closeReason }
}

/// Writes a large payload with back-pressure: as much as the stream takes, more on `streamWritable`.
final class BulkSender {
    let payload: [UInt8]
    let stream: QuicStreamID
    private(set) var offset = 0

    init(payload: [UInt8], stream: QuicStreamID) {
        self.payload = payload
        self.stream = stream
    }

    var finished: Bool { offset == payload.count }

    func pump(_ connection: QuicConnection) throws {
        while offset < payload.count {
            let end = min(offset + 64 * 1024, payload.count)
            let taken = try connection.write(Array(payload[offset..<end]), to: stream, fin: end == payload.count)
            offset += taken
            if taken < end - offset + taken { break }
        }
    }
}

/// Collects one stream's bytes into a checksum until FIN.
struct StreamSink {
    var checksum = EngineFixtures.Checksum()
    var finished = false

    mutating func take(_ event: QuicEvent, stream: QuicStreamID) {
        if case .streamData(let id, let bytes, let fin) = event, id == stream {
            checksum.add(bytes)
            if fin { finished = true }
        }
    }
}
