import ChatProtocol
import ChatServerCore
import Glibc
import LocalStore
import Prometheus
import QuicIO
import SQLiteStorage
import ServiceDiscovery

/// The glue between the QUIC engine and the chat core: it turns connection events into core
/// calls and carries out the actions the core returns. Runs entirely on the event-loop thread.
final class ChatServerApp {
    let loop: EventLoop
    let driver: QuicDriver
    let state: ChatServerState
    /// Both replaced by a configuration reload (SIGHUP).
    var logger: Logger
    var options: ServerOptions
    let metrics: ServerMetrics
    var metricsEndpoint: MetricsEndpoint?
    var links: [UInt64: ClientLink] = [:]
    var shuttingDown = false
    /// A stopping node of several has told the directory (``ClusterLink/leave(_:)``).
    var leftDirectory = true
    /// The process's exit status once the loop stops: 1 when it stopped because it must not serve.
    var exitStatus: Int32 = 0
    /// One engine copy of each core payload per batch of actions: a broadcast is copied once.
    var converted: [ObjectIdentifier: OutboundBytes] = [:]
    var lastConverted: (payload: SharedPayload, bytes: OutboundBytes)?
    /// Clients closed as slow consumers during the batch of actions being performed; they
    /// depart (stored `left`, `offline`) once the batch is done.
    var slowConsumersToDepart: [UInt64] = []
    /// Password hashes and checks, off the loop (PROTOCOL.md section 7).
    var passwordWorkers: PasswordWorkers!
    /// The disk work of file streams, off the loop (PROTOCOL.md section 9).
    var fileWorker: FileWorker!
    /// Uploads holding body bytes for the worker, handed over at the end of the loop round.
    var uploadsWithUnwrittenBytes: [FileStreamKey] = []
    /// Why the server stopped on its own (``fail(_:)``); nil for a stop by signal.
    private(set) var failure: String?
    /// `--advertise`: the DNS-SD service on the local network.
    var advertiser: ServiceAdvertiser?
    /// `--cluster`: the shared store this node's room events live in.
    var cluster: ClusterLink?
    /// One server's stores (no `--cluster`): ``startLocalStore()``.
    var localStore: LocalStoreAdapter?

    init(options: ServerOptions) throws {
        self.options = options
        logger = Logger(threshold: options.logLevel, format: options.logFormat)
        let metrics = ServerMetrics(startTime: Double(unixMilliseconds()) / 1000)
        self.metrics = metrics
        // A node of several keeps room events in Redis; its own store keeps what is not shared yet.
        // One server keeps everything through the local store adapter (its disk on the store
        // worker's thread): the core's synchronous stores are left empty.
        let history: any HistoryStore = options.cluster == nil ? InMemoryHistoryStore()
            : try options.databasePath.map { try SQLiteHistoryStore(path: $0) } ?? InMemoryHistoryStore()
        state = try ChatServerState(configuration: options.core, history: TimedHistoryStore(history, metrics: metrics),
                                    accounts: SharedAccountCache(), files: SharedFileCatalog(),
                                    random: SystemRandomNumberGenerator())
        let certificate = try ServerCertificate.prepare(options)
        if options.selfSigned {
            logger.log(.info, certificate.created ? "self-signed certificate made" : "self-signed certificate",
                       ["path": options.certificate, "fp": ServerCertificate.display(certificate.fingerprint)])
        }
        loop = try EventLoop()
        let directory: FileDirectory
        do {
            directory = try options.filesDirectory.map { path throws(FileDirectory.Failure) in try FileDirectory(path: path) }
                ?? FileDirectory.temporary()
        } catch {
            throw ServerStartError("cannot use the file folder: \(error)")
        }
        driver = QuicDriver(loop: loop, endpoint: try QuicEndpoint(server: ChatServerApp.serverConfiguration(options), now: .now()))
        guard let address = SocketAddress.resolve(host: options.host, port: options.port) else {
            throw ServerStartError("cannot resolve --host \(options.host)")
        }
        driver.acknowledgementReadPause = ChatServerApp.acknowledgementReadPause(options)
        let bound = try driver.bind(address)
        driver.onEvent = { [unowned self] connection, event in handle(connection, event) }
        let space = DiskSpace(files: directory.path, database: options.databasePath)
        fileWorker = FileWorker(loop: loop, directory: directory, space: space) { [unowned self] report in handleFileReport(report) }
        passwordWorkers = PasswordWorkers(loop: loop, threads: options.passwordWorkers) { [unowned self] result in
            perform(state.passwordTaskFinished(result.ticket, result.outcome, now: unixMilliseconds()))
        }
        try loop.handleSignals([SIGINT, SIGTERM, SIGHUP]) { [unowned self] signal in
            if signal == SIGHUP { reload() } else { shutdown(signal: signal) }
        }
        // After the driver's tick: the round's packets have just been flushed.
        loop.addTick { [unowned self] in
            metrics.recordFlush()
            handOverUnwrittenUploads()
            return (nil, false)
        }
        if options.cluster == nil { try startLocalStore() }
        if let clusterOptions = options.cluster {
            do {
                startCluster(clusterOptions, filesFolderMark: try directory.mark())
            } catch {
                throw ServerStartError("cannot mark the file folder: \(error)")
            }
        }
        OperatorConsole.attach(to: self)
        expireInterruptedUploads()
        watchForStalledFileStreams()
        // A node of several keeps room history in Redis; its --db keeps only dm receipts.
        let historyStore = options.cluster != nil ? "redis" : options.databasePath ?? "memory"
        var fields = ["address": "\(bound)", "alpn": "qchat/1,chat", "history": historyStore,
                      "files": fileWorker.directory.path,
                      "retry": options.retry ? "always" : "above \(options.retryAboveHandshakes) handshakes",
                      "per_address": "\(options.maxPerAddress)",
                      "exempt": options.exemptAddresses.isEmpty ? "none" : options.exemptAddresses.map(\.description).joined(separator: ","),
                      "operators": options.core.operators.sorted().joined(separator: ","),
                      "accounts_only": options.core.accountsOnly ? "yes" : "no"]
        if let configuration = options.configurationFile { fields["config"] = configuration }
        if let clusterOptions = options.cluster {
            fields["cluster"] = "\(clusterOptions.topology)"
            fields["node"] = clusterOptions.node
            fields["node_timeout"] = "\(clusterOptions.nodeTimeout)"
            if let database = options.databasePath { fields["receipts"] = database }
            if clusterOptions.waitReplicas > 0 { fields["wait_replicas"] = String(clusterOptions.waitReplicas) }
        }
        if let endpoint = try startMetricsEndpoint() { fields["metrics"] = "\(endpoint.localAddress)" }
        logger.log(.info, "listening", fields)
        if let name = options.advertisedName {
            startAdvertising(as: name, port: bound.port, fingerprint: certificate.fingerprint)
        }
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
            if stream != ClientLink.chatStream && stream != ClientLink.presenceStream && !fileStreamOpened(stream, on: connection) {
                // Streams 0 and 4, and file streams for qchat/1 peers, are all (PROTOCOL.md sections 2 and 9).
                connection.stopSending(stream, errorCode: 0x1)
                connection.resetStream(stream, errorCode: 0x1)
                logger.log(.debug, "stream refused", ["client": "\(connection.id)", "stream": "\(stream)"])
            }
        case .streamData(let stream, let bytes, let fin):
            guard let link = links[connection.id], link.helloReported else { return }
            if stream >= 8 { return receiveFileData(bytes, fin: fin, on: stream, link: link, now: now) }
            receive(bytes, fin: fin, on: stream, link: link, now: now)
        case .datagram(let bytes):
            guard links[connection.id]?.helloReported == true else { return }
            metrics.datagramsReceived += 1
            perform(state.receivedDatagram(bytes, from: connection.id, now: now))
        case .streamWritable(let stream):
            guard let link = links[connection.id] else { return }
            if link.fileStreams[stream] != nil { return pumpDownload(FileStreamKey(client: connection.id, stream: stream)) }
            drainWaiting(link, stream: stream)
        case .closed(let reason):
            guard let link = links.removeValue(forKey: connection.id) else { return }
            logger.log(.info, "closed", ["client": "\(connection.id)", "reason": reason.description])
            fileStreamsEnded(link)
            if !link.helloReported { metrics.handshakeFailures[ServerMetrics.handshakeFailure(reason), default: 0] += 1 }
            if !link.closedByServer && link.helloReported {
                perform(state.disconnected(connection.id, reason: ChatServerApp.departureReason(reason), now: now))
            }
            if shuttingDown && links.isEmpty { finishShutdown() }
        case .pathChanged(_, let remote):
            logger.log(.info, "client moved", ["client": "\(connection.id)", "address": "\(remote)"])
        case .streamReset(let stream, _):
            if let link = links[connection.id] { fileStreamReset(stream, link: link) }
        case .streamClosed(let stream):
            if let link = links[connection.id] { fileStreamClosed(stream, link: link) }
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
        let receivedAt = MonotonicTime.now()
        let deliveredBefore = metrics.deliveredTotal
        var actions: [ServerAction] = []
        let client = link.connection.id
        bytes.withUnsafeBytes { raw in
            if kind == .chat {
                link.chatDecoder.feed(raw) {
                    metrics.count($0)
                    gather(state.received($0, from: client, on: kind, now: now), into: &actions)
                }
            } else {
                link.presenceDecoder.feed(raw) {
                    metrics.count($0)
                    gather(state.received($0, from: client, on: kind, now: now), into: &actions)
                }
            }
        }
        if fin {
            let rest = kind == .chat ? link.chatDecoder.finish() : link.presenceDecoder.finish()
            for event in rest {
                metrics.count(event)
                gather(state.received(event, from: client, on: kind, now: now), into: &actions)
            }
        }
        perform(actions)
        metrics.noteDeliveries(since: deliveredBefore, receivedAt: receivedAt)
    }

    /// Adds one message's actions to a read's: the first are taken as they are (a fan-out's fifty
    /// `.send`s are not copied and destroyed once more on their way to `perform`).
    @inline(__always)
    private func gather(_ more: [ServerAction], into actions: inout [ServerAction]) {
        if actions.isEmpty { actions = more } else { actions += more }
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
                "coalescing_holds": seen.coalescingHolds, "coalescing_holds_cut_short": seen.coalescingHoldsCutShort,
                "idle_memory_set_asides": seen.idleMemorySetAsides, "idle_memory_restores": seen.idleMemoryRestores,
                "ngtcp2_bytes": driver.endpoint.ngtcp2Bytes, "heap_bytes": ProcessMemory.heapBytes,
                "connection_page_bytes": ProcessMemory.connectionPageBytes]
    }

    // MARK: Shutdown

    /// Stops the server for a reason it cannot serve with (after the start, on the loop): the
    /// reason is logged, and `chat-server` says it on stderr and exits with status 1.
    func fail(_ reason: String) {
        guard failure == nil else { return }
        failure = reason
        logger.log(.error, "cannot serve", ["reason": reason])
        shutdown(because: "failure")
    }

    private func shutdown(signal: Int32) { shutdown(because: signal == SIGINT ? "SIGINT" : "SIGTERM") }

    private func shutdown(because cause: String) {
        guard !shuttingDown else { return }
        shuttingDown = true
        logger.log(.info, "shutting down", ["signal": cause, "clients": "\(links.count)"])
        logger.log(.info, "endpoint statistics", Dictionary(uniqueKeysWithValues: statistics.map { ($0.key, "\($0.value)") }))
        withdrawAdvertisement()
        // A node of several hands its clients over: the directory learns it is stopping first.
        if let cluster {
            leftDirectory = false
            cluster.leave { [weak self] in self?.leftDirectory = true }
        }
        perform(state.shutdown(now: unixMilliseconds(), handsOverClients: cluster != nil))
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
        loop.schedule(at: .now() + .milliseconds(50)) { [unowned self] in
            fileWorker.drain()
            stopWhenStored(giveUpAt: .now() + .seconds(2))
        }
    }

    /// A node of several stops once what its users sent last is stored and the directory knows it
    /// is stopping, or after `giveUpAt` when Redis does not answer.
    private func stopWhenStored(giveUpAt: MonotonicTime) {
        // A node's appends answered by Redis, or one server's by its store worker: acknowledged ones are stored.
        // One server also waits for its store worker: the members' `left shutdown` are notices
        // nobody waits for, and a process that ended before their commit lost them (a restart
        // then showed everyone joining again: aServerRestartLeavesNoChurn, one run in two).
        let storing = state.pendingRoomAppends > 0 || localStore?.hasWorkInFlight == true
        guard cluster != nil || localStore != nil, storing || !leftDirectory, MonotonicTime.now() < giveUpAt else {
            cluster?.stop()
            loop.stop()
            return
        }
        loop.schedule(at: .now() + .milliseconds(10)) { [unowned self] in stopWhenStored(giveUpAt: giveUpAt) }
    }

    /// Every second: file streams without progress are given up (``giveUpStalledFileStreams(now:)``).
    private func watchForStalledFileStreams() {
        giveUpStalledFileStreams(now: unixMilliseconds())
        loop.schedule(at: .now() + .seconds(1)) { [unowned self] in watchForStalledFileStreams() }
    }

    /// Interrupted uploads past their wait lose their bytes; checked at start and every ten minutes.
    private func expireInterruptedUploads() {
        perform(state.expireInterruptedUploads(now: unixMilliseconds()))
        expireLocalPartials()
        loop.schedule(at: .now() + .seconds(600)) { [unowned self] in expireInterruptedUploads() }
    }
}

struct ServerStartError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
