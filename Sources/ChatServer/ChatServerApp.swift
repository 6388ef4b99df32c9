import ChatProtocol
import ChatServerCore
import Glibc
import QuicEngine

/// The glue between the QUIC engine and the chat core: it turns connection events into core
/// calls and carries out the actions the core returns. Runs entirely on the event-loop thread.
final class ChatServerApp {
    let loop: EventLoop
    let driver: QuicDriver
    let state: ChatServerState
    let logger: Logger
    let options: ServerOptions
    var links: [UInt64: ClientLink] = [:]
    var shuttingDown = false
    /// One engine copy of each core payload per batch of actions: a broadcast is copied once.
    var converted: [ObjectIdentifier: OutboundBytes] = [:]
    var lastConverted: (payload: SharedPayload, bytes: OutboundBytes)?
    /// Clients closed as slow consumers during the batch of actions being performed; they
    /// depart (stored `left`, `offline`) once the batch is done.
    var slowConsumersToDepart: [UInt64] = []
    /// Password hashes and checks, off the loop (PROTOCOL.md section 7).
    var passwordWorkers: PasswordWorkers!

    init(options: ServerOptions) throws {
        self.options = options
        logger = Logger(threshold: options.logLevel)
        let history: any HistoryStore = try options.databasePath.map { try SQLiteHistoryStore(path: $0) } ?? InMemoryHistoryStore()
        let accounts: any AccountStore = try options.databasePath.map { try SQLiteAccountStore(path: $0) } ?? InMemoryAccountStore()
        state = try ChatServerState(configuration: options.core, history: history, accounts: accounts)
        var tls = QuicTLSConfiguration(certificateChainPath: options.certificate, privateKeyPath: options.key,
                                       alpn: ["qchat/1", "chat"])
        tls.trustedCAPath = options.clientCA
        // A client certificate is an identity (PROTOCOL.md section 7): asked for in every handshake.
        tls.requestClientCertificate = true
        var connection = QuicConfiguration(tls: tls)
        connection.idleTimeout = .seconds(30)
        // A client on a very lossy link can need more than 10 s for its handshake (Initials back
        // off exponentially); half-open connections stay bounded by --max-clients.
        connection.handshakeTimeout = .seconds(30)
        connection.maxDatagramFrameSize = 1200
        connection.maxBidirectionalStreams = 8
        connection.streamSendBufferLimit = 256 << 10
        var server = QuicServerConfiguration(connection: connection)
        server.maxConnections = options.maxClients
        server.maxConnectionsPerAddress = options.maxPerAddress
        server.addressLimitExemptions = options.exemptAddresses
        server.requireRetry = options.retry
        server.retryAboveHandshakes = options.retryAboveHandshakes
        loop = try EventLoop()
        driver = QuicDriver(loop: loop, endpoint: try QuicEndpoint(server: server, now: .now()))
        guard let address = SocketAddress.resolve(host: options.host, port: options.port) else {
            throw ServerStartError("cannot resolve --host \(options.host)")
        }
        let bound = try driver.bind(address)
        driver.onEvent = { [unowned self] connection, event in handle(connection, event) }
        passwordWorkers = PasswordWorkers(loop: loop, threads: options.passwordWorkers) { [unowned self] result in
            perform(state.passwordTaskFinished(result.ticket, result.outcome, now: unixMilliseconds()))
        }
        try loop.handleSignals([SIGINT, SIGTERM]) { [unowned self] signal in shutdown(signal: signal) }
        OperatorConsole.attach(to: self)
        logger.log(.info, "listening", ["address": "\(bound)", "alpn": "qchat/1,chat",
                                        "history": options.databasePath ?? "memory",
                                        "retry": options.retry ? "always" : "above \(options.retryAboveHandshakes) handshakes",
                                        "per_address": "\(options.maxPerAddress)",
                                        "exempt": options.exemptAddresses.isEmpty ? "none" : options.exemptAddresses.map(\.description).joined(separator: ","),
                                        "operators": options.core.operators.sorted().joined(separator: ","),
                                        "accounts_only": options.core.accountsOnly ? "yes" : "no"])
    }

    func run() { loop.run() }

    private func handle(_ connection: QuicConnection, _ event: QuicEvent) {
        let now = unixMilliseconds()
        switch event {
        case .accepted:
            links[connection.id] = ClientLink(connection: connection)
            logger.log(.debug, "handshake started", ["client": "\(connection.id)", "address": "\(connection.remoteAddress)"])
        case .handshakeCompleted:
            guard let link = links[connection.id] else { return }
            link.helloReported = true
            let alpn = connection.negotiatedALPN ?? ""
            var fields = ["client": "\(connection.id)", "address": "\(connection.remoteAddress)", "alpn": alpn]
            if let subject = connection.peerCertificateSubject { fields["subject"] = subject }
            logger.log(.info, "connected", fields)
            if shuttingDown {
                connection.close(applicationCode: CloseCode.shutdown.rawValue, reason: "server shutting down")
                return
            }
            perform(state.connected(connection.id, legacy: alpn == "chat", datagrams: connection.maxDatagramPayloadSize != nil,
                                    address: connection.remoteAddress.clientKey.host,
                                    addressIsShared: options.exemptAddresses.contains { $0.contains(connection.remoteAddress) },
                                    certificate: connection.peerCertificateFingerprint, now: now))
        case .streamOpened(let stream):
            if stream != ClientLink.chatStream && stream != ClientLink.presenceStream {
                // Version 1 assigns no further streams (PROTOCOL.md section 2).
                connection.stopSending(stream, errorCode: 0x1)
                connection.resetStream(stream, errorCode: 0x1)
                logger.log(.debug, "stream refused", ["client": "\(connection.id)", "stream": "\(stream)"])
            }
        case .streamData(let stream, let bytes, let fin):
            guard let link = links[connection.id], link.helloReported else { return }
            receive(bytes, fin: fin, on: stream, link: link, now: now)
        case .datagram(let bytes):
            guard links[connection.id]?.helloReported == true else { return }
            perform(state.receivedDatagram(bytes, from: connection.id, now: now))
        case .streamWritable(let stream):
            if let link = links[connection.id] { drainWaiting(link, stream: stream) }
        case .closed(let reason):
            guard let link = links.removeValue(forKey: connection.id) else { return }
            logger.log(.info, "closed", ["client": "\(connection.id)", "reason": reason.description])
            if !link.closedByServer && link.helloReported {
                perform(state.disconnected(connection.id, reason: ChatServerApp.departureReason(reason), now: now))
            }
            if shuttingDown && links.isEmpty { finishShutdown() }
        case .pathChanged(_, let remote):
            logger.log(.info, "client moved", ["client": "\(connection.id)", "address": "\(remote)"])
        case .streamReset, .streamClosed:
            break
        }
    }

    private func receive(_ bytes: [UInt8], fin: Bool, on stream: QuicStreamID, link: ClientLink, now: Int64) {
        let kind: ChatStreamKind
        switch stream {
        case ClientLink.chatStream: kind = .chat
        case ClientLink.presenceStream:
            kind = .presence
            if !link.hasPresenceStream {
                link.hasPresenceStream = true
                perform(state.presenceStreamOpened(link.connection.id, now: now))
            }
        default: return
        }
        var actions: [ServerAction] = []
        let client = link.connection.id
        bytes.withUnsafeBytes { raw in
            if kind == .chat {
                link.chatDecoder.feed(raw) { actions += state.received($0, from: client, on: kind, now: now) }
            } else {
                link.presenceDecoder.feed(raw) { actions += state.received($0, from: client, on: kind, now: now) }
            }
        }
        if fin {
            let rest = kind == .chat ? link.chatDecoder.finish() : link.presenceDecoder.finish()
            for event in rest { actions += state.received(event, from: client, on: kind, now: now) }
        }
        perform(actions)
    }

    static func departureReason(_ reason: QuicCloseReason) -> String {
        switch reason.kind {
        case .application(0) where reason.byPeer: return "quit"
        case .idleTimeout: return "timeout"
        default: return "closed"
        }
    }

    /// What the endpoint has seen since the start, for the `stats` command and the last log line.
    var statistics: KeyValuePairs<String, Int> {
        let seen = driver.endpoint.statistics
        return ["connections": driver.endpoint.connectionCount, "handshakes": driver.endpoint.handshakesInProgress, "clients": links.count,
                "datagrams": seen.datagramsReceived, "bytes": seen.bytesReceived, "empty": seen.emptyDatagrams,
                "undecodable": seen.undecodableDatagrams, "unroutable": seen.unroutableDatagrams,
                "version_negotiations": seen.versionNegotiationsSent, "stateless_resets": seen.statelessResetsSent,
                "retries": seen.retriesSent, "invalid_tokens": seen.invalidTokens, "initials_dropped": seen.initialsDropped,
                "accepted": seen.connectionsAccepted,
                "refused": seen.connectionsRefused, "refused_per_address": seen.connectionsRefusedPerAddress,
                "handshakes_full": seen.handshakesFull, "handshakes_resumed": seen.handshakesResumed,
                "ngtcp2_bytes": driver.endpoint.ngtcp2Bytes, "heap_bytes": ProcessMemory.heapBytes]
    }

    // MARK: Shutdown

    private func shutdown(signal: Int32) {
        guard !shuttingDown else { return }
        shuttingDown = true
        logger.log(.info, "shutting down", ["signal": signal == SIGINT ? "SIGINT" : "SIGTERM", "clients": "\(links.count)"])
        logger.log(.info, "endpoint statistics", Dictionary(uniqueKeysWithValues: statistics.map { ($0.key, "\($0.value)") }))
        perform(state.shutdown(now: unixMilliseconds()))
        for link in links.values where !link.connection.isClosed {
            link.closedByServer = true
            link.connection.close(applicationCode: CloseCode.shutdown.rawValue, reason: "server shutting down")
        }
        if links.isEmpty { finishShutdown() }
        // Closes are out once the loop has flushed; do not wait on clients that never answer.
        loop.schedule(at: .now() + .milliseconds(500)) { [unowned self] in finishShutdown() }
    }

    private func finishShutdown() {
        // One more tick sends the CONNECTION_CLOSE packets still queued.
        loop.schedule(at: .now() + .milliseconds(50)) { [unowned self] in loop.stop() }
    }
}

struct ServerStartError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
