import CLIOptions
import Glibc
import QuicIO
import QuicSimulation

/// Echo server on real UDP: prints `READY <port>` once listening, exits 0 on SIGINT/SIGTERM.
final class EchoServer {
    private let loop: EventLoop
    private let driver: QuicDriver
    private let echo = EchoResponder()
    private var modes: [UInt64: Mode] = [:]

    init(options: Options) throws {
        guard let cert = options.string("cert"), let key = options.string("key") else {
            throw UsageError("server needs --cert and --key")
        }
        let alpn = options.strings("alpn").isEmpty ? ["qchat-echo"] : options.strings("alpn")
        var tls = QuicTLSConfiguration(certificateChainPath: cert, privateKeyPath: key, alpn: alpn)
        tls.trustedCAPath = options.string("client-ca")
        var configuration = QuicServerConfiguration(connection: QuicConfiguration(tls: tls))
        configuration.requireRetry = options.flag("retry")
        configuration.maxConnections = try options.integer("max-connections", default: 10_000, in: 1...1_000_000)
        let host = options.string("host", default: "127.0.0.1")
        let port = try options.integer("port", default: 4433, in: 0...65535)
        guard let address = SocketAddress.resolve(host: host, port: UInt16(port)) else {
            throw UsageError("cannot resolve --host \(host)")
        }
        loop = try EventLoop()
        driver = QuicDriver(loop: loop, endpoint: try QuicEndpoint(server: configuration, now: .now()))
        let bound = try driver.bind(address)
        try loop.handleSignals([SIGINT, SIGTERM, SIGUSR1]) { [unowned self] signal in
            let endpoint = driver.endpoint
            Console.error("quic-echo: connections=\(endpoint.connectionCount) accepted=\(endpoint.statistics.connectionsAccepted) datagrams=\(endpoint.statistics.datagramsReceived)")
            if signal != SIGUSR1 { loop.stop() }
        }
        driver.onEvent = { [unowned self] connection, event in handle(connection, event) }
        Console.line("READY \(bound.port)")
    }

    func run() { loop.run() }

    private enum Mode {
        case undecided([UInt8])
        case echo
        case bulk(BulkResponder)
    }

    /// A first stream that starts with `SEND <n>\n` gets n bytes back instead of an echo.
    private func handle(_ connection: QuicConnection, _ event: QuicEvent) {
        switch event {
        case .streamData(0, let bytes, let fin):
            guard case .undecided(let soFar) = modes[connection.id] ?? .undecided([]) else {
                if case .echo = modes[connection.id] { echo.handle(event, on: connection) }
                return
            }
            let request = soFar + bytes
            let prefix = Array("SEND ".utf8)
            let newline = request.firstIndex(of: 10)
            let couldBeRequest = request.starts(with: prefix) || prefix.starts(with: request)
            if couldBeRequest && newline == nil && !fin && request.count < 64 {
                modes[connection.id] = .undecided(request)
            } else if request.starts(with: prefix), let newline,
                      let total = Int(String(decoding: request[prefix.count..<newline], as: UTF8.self)), total >= 0 {
                let responder = BulkResponder(stream: 0, total: total)
                modes[connection.id] = .bulk(responder)
                responder.pump(connection)
            } else {
                modes[connection.id] = .echo
                echo.handle(.streamData(0, request, fin: fin), on: connection)
            }
        case .streamWritable(let stream):
            if case .bulk(let responder) = modes[connection.id], responder.stream == stream {
                responder.pump(connection)
            } else {
                echo.handle(event, on: connection)
            }
        case .closed:
            modes[connection.id] = nil
            echo.handle(event, on: connection)
        default:
            echo.handle(event, on: connection)
        }
    }
}

/// Sends `total` bytes of one shared 64 KiB block: no copy per chunk.
final class BulkResponder {
    private static let block = OutboundBytes((0..<65536).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
    let stream: QuicStreamID
    private var remaining: Int

    init(stream: QuicStreamID, total: Int) {
        self.stream = stream
        remaining = total
    }

    func pump(_ connection: QuicConnection) {
        let block = BulkResponder.block
        if remaining == 0 {
            try? connection.finish(stream)
            remaining = -1
        }
        while remaining > 0 {
            if remaining >= block.count {
                guard (try? connection.write(block, to: stream, fin: remaining == block.count)) == true else { return }
                remaining -= block.count
            } else {
                let tail = Array(block.bytes.prefix(remaining))
                guard let taken = try? connection.write(tail, to: stream, fin: true) else { return }
                remaining -= taken
                if remaining > 0 { return }
            }
        }
    }
}
