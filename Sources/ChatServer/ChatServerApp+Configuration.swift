import ChatProtocol
import ChatServerCore
import QuicEngine

/// The engine's settings from the server's options, and reloading them all on SIGHUP.
extension ChatServerApp {
    /// Transport and admission settings; the TLS files are read when the endpoint loads them.
    static func serverConfiguration(_ options: ServerOptions) -> QuicServerConfiguration {
        var tls = QuicTLSConfiguration(certificateChainPath: options.certificate, privateKeyPath: options.key, alpn: ["qchat/1", "chat"])
        tls.trustedCAPath = options.clientCA
        // A client certificate is an identity (PROTOCOL.md section 7): asked for in every handshake.
        tls.requestClientCertificate = true
        var connection = QuicConfiguration(tls: tls)
        connection.idleTimeout = .seconds(30)
        // A client on a very lossy link can need more than 10 s for its handshake (Initials back
        // off exponentially); half-open connections stay bounded by --max-clients.
        connection.handshakeTimeout = .seconds(30)
        connection.maxDatagramFrameSize = 1200
        // Streams 0 and 4 and at most four file streams at once; the credit grows as streams close.
        connection.maxBidirectionalStreams = 2 + UInt64(ChatLimits.maxFileStreams)
        connection.streamSendBufferLimit = 256 << 10
        // Several messages to a busy member share a packet (and its seal, its sendmmsg slot and
        // the ACK that comes back); docs/PERFORMANCE.md "The coalescing window".
        connection.coalescingWindow = TimeSpan(nanoseconds: UInt64((options.coalesceMilliseconds * 1e6).rounded()))
        // An idle client's QUIC state is kept in a compact copy (docs/PERFORMANCE.md "Idle memory").
        connection.idleMemoryDelay = options.idleMemorySeconds > 0
            ? TimeSpan(nanoseconds: UInt64((options.idleMemorySeconds * 1e9).rounded())) : nil
        var server = QuicServerConfiguration(connection: connection)
        server.maxConnections = options.maxClients
        server.maxConnectionsPerAddress = options.maxPerAddress
        server.addressLimitExemptions = options.exemptAddresses
        server.requireRetry = options.retry
        server.retryAboveHandshakes = options.retryAboveHandshakes
        return server
    }

    /// How long the loop waits after a wake-up that read only ACKs before it reads again: a
    /// fifth of the coalescing window, at most 1 ms (the members' ACKs of one flight arrive over
    /// about that long), and none without a window. A message arriving meanwhile waits as long.
    static func acknowledgementReadPause(_ options: ServerOptions) -> TimeSpan {
        let nanoseconds = UInt64((options.coalesceMilliseconds * 1e6 / 5).rounded())
        return TimeSpan(nanoseconds: min(nanoseconds, 1_000_000))
    }

    /// SIGHUP: the command line is read again over the configuration file's current contents,
    /// and what changed takes effect without closing a connection: limits (the core's, the send
    /// queues', the engine's admission), the server name, the log level and format, the metrics
    /// endpoint's bounds, and the certificate, key and client CA, read from their files again
    /// (new handshakes use them; open connections keep theirs). The listening addresses and the
    /// database stay until a restart. A file or certificate with a mistake changes nothing: the
    /// error is logged and the running settings stay.
    func reload() {
        let fresh: ServerOptions
        do {
            fresh = try ServerOptions(options.arguments)
            try fresh.core.validate()
            try driver.endpoint.reconfigure(server: ChatServerApp.serverConfiguration(fresh))
        } catch {
            metrics.reloadsFailed += 1
            logger.log(.error, "configuration reload failed", ["error": "\(error)", "kept": "the running settings"])
            return
        }
        var applied = fresh
        let restartOnly = options.restartOnlyDifferences(from: fresh)
        applied.keepRestartOnlySettings(of: options)
        let changed = options.settingsSummary.filter { applied.settingsSummary[$0.key] != $0.value }.keys.sorted()
        try? state.reconfigure(applied.core, now: unixMilliseconds())
        if localStore?.idleRoomLimit != nil { localStore?.idleRoomLimit = applied.core.idleRoomLimit }
        if let fingerprint = try? ServerCertificate.fingerprint(ofFile: applied.certificate) { advertiseCertificate(fingerprint: fingerprint) }
        logger = Logger(threshold: applied.logLevel, format: applied.logFormat, journalPriorities: logger.journalPriorities)
        metricsEndpoint?.limits = applied.metrics.limits
        driver.acknowledgementReadPause = ChatServerApp.acknowledgementReadPause(applied)
        options = applied
        reserveOperatorNames()
        metrics.reloadsSucceeded += 1
        metrics.lastReloadTime = Double(unixMilliseconds()) / 1000
        logger.log(.info, "configuration reloaded", ["changed": changed.isEmpty ? "nothing" : changed.joined(separator: ","),
                                                     "certificate": applied.certificate])
        if !restartOnly.isEmpty {
            logger.log(.warning, "configuration needs a restart", ["settings": restartOnly.joined(separator: ","), "kept": "the running values"])
        }
    }
}
