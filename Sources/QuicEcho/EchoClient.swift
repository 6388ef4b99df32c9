import CLIOptions
import Foundation
import Glibc
import QuicIO

/// The client side of quic-echo. Each mode prints one JSON line and returns the exit status:
/// 0 success, 1 the check failed, 2 no handshake.
final class EchoClient {
    private let loop: EventLoop
    private let driver: QuicDriver
    private let remote: SocketAddress
    private let local: SocketAddress
    private var configuration: QuicConfiguration
    private let options: Options
    private var status: Int32 = 1
    private var report: [String: String] = [:]
    private let started = MonotonicTime.now()

    init(options: Options) throws {
        self.options = options
        let host = options.string("host", default: "127.0.0.1")
        let port = try options.integer("port", default: 4433, in: 1...65535)
        guard let address = SocketAddress.resolve(host: host, port: UInt16(port)) else {
            throw UsageError("cannot resolve --host \(host)")
        }
        remote = address
        var tls = QuicTLSConfiguration(trustedCAPath: options.string("ca"), insecureSkipVerification: options.flag("insecure"),
                                       serverName: options.string("server-name") ?? host,
                                       alpn: [options.string("alpn", default: "qchat-echo")])
        tls.certificateChainPath = options.string("cert")
        tls.privateKeyPath = options.string("key")
        if tls.trustedCAPath == nil && !tls.insecureSkipVerification { throw UsageError("client needs --ca FILE or --insecure") }
        configuration = QuicConfiguration(tls: tls)
        configuration.maxConnectionWindow = 64 << 20
        configuration.maxStreamWindow = 64 << 20
        loop = try EventLoop()
        driver = QuicDriver(loop: loop, endpoint: try QuicEndpoint(now: .now()))
        local = try driver.bind(SocketAddress(host: address.isIPv6 ? "::" : "0.0.0.0", port: 0)!)
        let timeout = try options.double("timeout", default: 20, in: 0.1...86_400)
        loop.schedule(at: started + .milliseconds(UInt64(timeout * 1000))) { [unowned self] in
            finish(status: report["handshake"] == "true" ? 1 : 2, error: "timed out after \(timeout) s")
        }
    }

    func run() throws -> Int32 {
        if options.string("download") != nil {
            try download()
        } else if options.string("handshakes") != nil {
            try handshakes()
        } else if options.string("idle") != nil {
            try idle()
        } else {
            try echoCheck()
        }
        loop.run()
        let fields = report.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }
        Console.line("{" + fields.joined(separator: ", ") + "}")
        return status
    }

    private func finish(status: Int32, error: String? = nil) {
        self.status = status
        report["ok"] = status == 0 ? "true" : "false"
        if let error {
            report["error"] = "\"\(error.replacingOccurrences(of: "\"", with: "'"))\""
            Console.error("quic-echo: \(error)")
        }
        loop.stop()
    }

    private func connect() throws -> QuicConnection {
        try driver.endpoint.connect(to: remote, from: local, configuration: configuration, now: .now())
    }

    private var elapsedSeconds: Double { (MonotonicTime.now() - started).seconds }

    // MARK: Modes

    /// Stream echo of `--bytes` and `--datagrams` datagrams, as the aioquic peer checks it.
    private func echoCheck() throws {
        let byteCount = try options.integer("bytes", default: 100_000, in: 0...1 << 34)
        let datagramCount = try options.integer("datagrams", default: 3, in: 0...1000)
        var generator = (state: UInt64(7), unused: 0)
        let payload: [UInt8] = (0..<byteCount).map { _ in
            generator.state = generator.state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: generator.state >> 33)
        }
        let connection = try connect()
        var stream: QuicStreamID = -1
        var offset = 0
        var received: [UInt8] = []
        var echoedDatagrams = 0
        var sentDatagrams: [[UInt8]] = []
        var streamDone = false
        func pump() {
            while offset < payload.count, let taken = try? connection.write(Array(payload[offset..<min(offset + 65536, payload.count)]), to: stream, fin: offset + 65536 >= payload.count), taken > 0 {
                offset += taken
            }
            if payload.isEmpty { try? connection.finish(stream) }
        }
        func checkDone() {
            guard streamDone, echoedDatagrams == sentDatagrams.count || (echoedDatagrams > 0 && elapsedSeconds > 5) else { return }
            report["stream_ok"] = received == payload ? "true" : "false"
            report["stream_bytes"] = "\(received.count)"
            report["datagrams_echoed"] = "\(echoedDatagrams)"
            connection.close(applicationCode: 0)
            let ok = received == payload && (datagramCount == 0 || echoedDatagrams > 0)
            finish(status: ok ? 0 : 1, error: ok ? nil : "echo mismatch")
        }
        driver.onEvent = { [unowned self] connection, event in
            switch event {
            case .handshakeCompleted:
                report["handshake"] = "true"
                report["alpn"] = "\"\(connection.negotiatedALPN ?? "")\""
                stream = (try? connection.openStream()) ?? -1
                pump()
                for index in 0..<datagramCount {
                    let datagram = Array("dgram-\(index)".utf8)
                    if (try? connection.sendDatagram(datagram)) != nil { sentDatagrams.append(datagram) }
                }
                report["datagrams_sent"] = "\(sentDatagrams.count)"
                if datagramCount > 0 {
                    loop.schedule(at: .now() + .seconds(5)) { checkDone() }
                }
            case .streamWritable: pump()
            case .streamData(let id, let bytes, let fin) where id == stream:
                received += bytes
                if fin {
                    streamDone = true
                    checkDone()
                }
            case .datagram(let bytes):
                if sentDatagrams.contains(bytes) { echoedDatagrams += 1 }
                checkDone()
            case .closed(let reason) where report["ok"] == nil:
                finish(status: report["handshake"] == "true" ? 1 : 2, error: reason.description)
            default: break
            }
        }
    }

    /// Downloads `--download` bytes with `SEND <n>` and reports the rate.
    private func download() throws {
        let total = try options.integer("download", default: 0, in: 0...1 << 40)
        _ = try connect()
        var received = 0
        var firstByte: MonotonicTime?
        driver.onEvent = { [unowned self] connection, event in
            switch event {
            case .handshakeCompleted:
                report["handshake"] = "true"
                if let stream = try? connection.openStream() {
                    _ = try? connection.write(Array("SEND \(total)\n".utf8), to: stream, fin: true)
                }
            case .streamData(_, let bytes, let fin):
                firstByte = firstByte ?? .now()
                received += bytes.count
                if fin {
                    let seconds = elapsedSeconds
                    report["bytes"] = "\(received)"
                    report["seconds"] = String(format: "%.3f", seconds)
                    report["megabytes_per_second"] = String(format: "%.1f", Double(received) / seconds / 1e6)
                    connection.close(applicationCode: 0)
                    finish(status: received == total ? 0 : 1, error: received == total ? nil : "short transfer")
                }
            case .closed(let reason) where report["ok"] == nil:
                finish(status: 1, error: reason.description)
            default: break
            }
        }
    }

    /// Completes `--handshakes` full handshakes, `--concurrency` at a time, and reports the rate.
    private func handshakes() throws {
        let total = try options.integer("handshakes", default: 1000, in: 1...10_000_000)
        let concurrency = try options.integer("concurrency", default: 32, in: 1...10_000)
        var started = 0
        var completed = 0
        var failed = 0
        func startMore() {
            while started < total && started - completed - failed < concurrency {
                started += 1
                if (try? connect()) == nil { failed += 1 }
            }
        }
        startMore()
        driver.onEvent = { [unowned self] connection, event in
            switch event {
            case .handshakeCompleted:
                completed += 1
                connection.close(applicationCode: 0)
            case .closed where !connection.isEstablished && connection.closeReason?.byPeer == true:
                break
            case .closed(let reason):
                if reason.kind != .application(code: 0) || reason.byPeer { failed += 1 }
            default: break
            }
            if completed + failed == total {
                let seconds = elapsedSeconds
                report["handshakes"] = "\(completed)"
                report["failed"] = "\(failed)"
                report["seconds"] = String(format: "%.3f", seconds)
                report["handshakes_per_second"] = String(format: "%.0f", Double(completed) / seconds)
                finish(status: failed == 0 ? 0 : 1)
            } else {
                startMore()
            }
        }
    }

    /// Opens `--idle` connections, prints `HOLDING <n>` when all are up, keeps them for `--hold` s.
    private func idle() throws {
        let total = try options.integer("idle", default: 1000, in: 1...1_000_000)
        let hold = try options.double("hold", default: 10, in: 0...86_400)
        configuration.keepAliveInterval = .seconds(10)
        var started = 0
        var established = 0
        func startMore() {
            while started < total && started - established < 100 {
                started += 1
                _ = try? connect()
            }
        }
        startMore()
        driver.onEvent = { [unowned self] _, event in
            switch event {
            case .handshakeCompleted:
                established += 1
                if established == total {
                    Console.line("HOLDING \(established)")
                    report["connections"] = "\(established)"
                    loop.schedule(at: .now() + .milliseconds(UInt64(hold * 1000))) { [unowned self] in
                        for connection in driver.endpoint.connections.values { connection.close(applicationCode: 0) }
                        finish(status: 0)
                    }
                } else {
                    startMore()
                }
            case .closed(let reason) where report["ok"] == nil && reason.byPeer:
                finish(status: 1, error: reason.description)
            default: break
            }
        }
    }
}
