import CLIOptions
import ChatProtocol
import ChatServerCore
import Prometheus
import QuicEngine

/// The Prometheus page (`--metrics`): built on the loop thread when a scrape asks for it, from
/// the counters the glue keeps and what the engine, the core and /proc know at that moment.
extension ChatServerApp {
    func startMetricsEndpoint() throws -> MetricsEndpoint? {
        guard let address = options.metrics.address else { return nil }
        let endpoint = try MetricsEndpoint(loop: loop, address: address, limits: options.metrics.limits) { [unowned self] in
            metricsPage().bytes
        }
        metricsEndpoint = endpoint
        return endpoint
    }

    func metricsPage() -> MetricsPage {
        var page = MetricsPage()
        page.gauge("qchat_build_info", "The qchat release and the libraries in use; always 1.",
                   [MetricSample(["version": ProgramVersion.release, "ngtcp2": QuicLibraryVersions.ngtcp2, "gnutls": QuicLibraryVersions.gnutls], 1)])
        addConnectionFamilies(to: &page)
        addMessageFamilies(to: &page)
        addTrafficFamilies(to: &page)
        addFileFamilies(to: &page)
        if let cluster { addClusterFamilies(cluster, to: &page) }
        addOperationFamilies(to: &page)
        addProcessFamilies(to: &page)
        return page
    }

    private func addConnectionFamilies(to page: inout MetricsPage) {
        let endpoint = driver.endpoint
        var handshaking = 0, established = 0, closing = 0
        var rtts: [Double] = []
        rtts.reserveCapacity(endpoint.connectionCount)
        for connection in endpoint.connections.values {
            if connection.isClosed {
                closing += 1
            } else if connection.isEstablished {
                established += 1
                rtts.append(connection.statistics.smoothedRTT.seconds)
            } else {
                handshaking += 1
            }
        }
        page.gauge("qchat_connections", "QUIC connections by state.",
                   [MetricSample(["state": "handshake"], handshaking), MetricSample(["state": "established"], established),
                    MetricSample(["state": "closing"], closing)])
        page.gauge("qchat_clients", "Chat clients that said hello and are served.", state.activeClientCount)
        page.gauge("qchat_rooms", "Rooms with at least one member.", state.roomCount)
        page.gauge("qchat_room_members", "Room memberships: a client in three rooms counts three times.", state.roomMembershipCount)
        page.gauge("qchat_idle_rooms", "Rooms without members still held in memory.", state.idleRoomCount)

        let seen = endpoint.statistics
        page.counter("qchat_handshakes_total", "Completed TLS handshakes, full or resuming a session.",
                     [MetricSample(["mode": "full"], seen.handshakesFull),
                      MetricSample(["mode": "resumed"], seen.handshakesResumed)])
        var failures: [MetricSample] = ["timeout", "tls", "transport", "closed", "reset", "dropped"].map {
            MetricSample(["reason": $0], metrics.handshakeFailures[$0] ?? 0)
        }
        failures += [MetricSample(["reason": "refused"], seen.connectionsRefused - seen.connectionsRefusedPerAddress),
                     MetricSample(["reason": "refused_per_address"], seen.connectionsRefusedPerAddress),
                     MetricSample(["reason": "invalid_token"], seen.invalidTokens), MetricSample(["reason": "bad_initial"], seen.initialsDropped)]
        page.counter("qchat_handshakes_failed_total", "Connection attempts that did not complete a handshake, by why.", failures)
        page.counter("qchat_retries_sent_total", "QUIC Retry packets sent (address validation).", seen.retriesSent)
        page.counter("qchat_stateless_resets_sent_total", "Stateless resets sent for unknown connections.", seen.statelessResetsSent)
        page.counter("qchat_version_negotiations_sent_total", "Version Negotiation packets sent.", seen.versionNegotiationsSent)

        rtts.sort()
        let quantiles = [0.5, 0.9, 0.99].map { quantile in
            (quantile, rtts.isEmpty ? Double.nan : rtts[min(rtts.count - 1, Int((quantile * Double(rtts.count)).rounded(.down)))])
        }
        page.summary("qchat_quic_smoothed_rtt_seconds", "Smoothed RTT of the established connections, now.",
                     quantiles: quantiles, sum: rtts.reduce(0, +), count: rtts.count)
        page.counter("qchat_quic_stream_packets_lost_total",
                     "Packets carrying chat or presence stream data declared lost, and so retransmitted (ngtcp2 counts losses per stream).",
                     endpoint.streamPacketsLost)
    }

    /// The types a client sends and those the server sends (PROTOCOL.md sections 3, 7 and 8);
    /// the families show these, so the page stays the same size whatever clients send.
    static let serverMessageTypes: [MessageType] = [.welcome, .msg, .ack, .dm, .joined, .left, .nick, .historyEnd, .error, .roster,
                                                    .status, .typing, .account, .topic, .kicked, .banned, .unbanned, .op, .deop, .mode,
                                                    .invite, .rooms, .whois]
    static let clientMessageTypes: [MessageType] = [.join, .msg, .dm, .nick, .part, .history, .status, .typing, .presence, .register,
                                                    .login, .password, .certificate, .claim, .topic, .kick, .ban, .unban, .op, .deop,
                                                    .mode, .invite, .rooms, .whois]

    private func addMessageFamilies(to page: inout MetricsPage) {
        page.counter("qchat_messages_received_total", "Messages clients sent, by type.",
                     metrics.received.samples(ChatServerApp.clientMessageTypes))
        page.counter("qchat_messages_malformed_total", "Messages that did not decode (each answered with an error, or a close).",
                     metrics.malformedReceived)
        page.counter("qchat_deliveries_total", "Messages queued to clients, by type.",
                     metrics.delivered.samples(ChatServerApp.serverMessageTypes))
        page.counter("qchat_errors_sent_total", "Error replies by code; rate-limited counts the messages the flood limit dropped.",
                     ErrorCode.allCases.map { MetricSample(["code": $0.rawValue], state.statistics.errorsSent[$0] ?? 0) })
        page.counter("qchat_closes_total", "Connections the server closed, by close code.",
                     CloseCode.allCases.filter { $0 != .noError }.map { MetricSample(["code": $0.name], metrics.closes[$0] ?? 0) })
        page.counter("qchat_typing_datagrams_received_total", "Typing datagrams clients sent.", metrics.datagramsReceived)
        page.counter("qchat_datagrams_relayed_total", "Typing datagrams relayed to room members.", metrics.datagramsRelayed)
        page.counter("qchat_datagrams_dropped_total", "Typing not relayed: over the sender's rate, or refused by the connection.",
                     [MetricSample(["reason": "rate_limited"], state.statistics.typingDropped),
                      MetricSample(["reason": "send_failed"], metrics.datagramsDropped)])
        page.histogram("qchat_delivery_latency_seconds",
                       "From a message's arrival to the flush of the packets carrying what it caused, per message queued.",
                       [HistogramSeries(metrics.deliveryLatency)])
        page.histogram("qchat_history_store_seconds", "Duration of history store calls.",
                       [HistogramSeries(["operation": "append"], metrics.historyAppend),
                        HistogramSeries(["operation": "read"], metrics.historyRead)])
    }

    private func addTrafficFamilies(to page: inout MetricsPage) {
        let seen = driver.endpoint.statistics
        page.counter("qchat_udp_received_bytes_total", "UDP payload bytes received.", seen.bytesReceived)
        page.counter("qchat_udp_sent_bytes_total", "UDP payload bytes sent.", seen.bytesSent)
        page.counter("qchat_udp_datagrams_received_total", "UDP datagrams received.", seen.datagramsReceived)
        page.counter("qchat_udp_datagrams_sent_total", "UDP datagrams sent.", seen.datagramsSent)
        page.counter("qchat_udp_datagrams_ignored_total", "Received datagrams no connection could use, by why.",
                     [MetricSample(["reason": "empty"], seen.emptyDatagrams), MetricSample(["reason": "undecodable"], seen.undecodableDatagrams),
                      MetricSample(["reason": "unroutable"], seen.unroutableDatagrams)])
        page.counter("qchat_udp_send_errors_total", "sendmmsg calls that failed.", driver.sendErrors)
    }

    private func addFileFamilies(to page: inout MetricsPage) {
        var uploading = 0, downloading = 0
        for link in links.values {
            for file in link.fileStreams.values {
                switch file.phase {
                case .receiving: uploading += 1
                case .opening, .sending: downloading += 1
                case .header, .deciding, .done: break
                }
            }
        }
        page.gauge("qchat_file_transfers", "File streams moving a body now, by direction.",
                   [MetricSample(["direction": "upload"], uploading), MetricSample(["direction": "download"], downloading)])
        page.counter("qchat_file_uploads_total", "Uploads that ended, by outcome (interrupted ones are kept for a resume).",
                     ServerMetrics.uploadOutcomes.map { MetricSample(["outcome": $0], metrics.uploadsEnded[$0] ?? 0) })
        page.counter("qchat_file_downloads_total", "Downloads begun.", metrics.downloadsStarted)
        page.counter("qchat_file_streams_stalled_total", "File streams given up after --file-stall-timeout without progress.",
                     metrics.fileStreamsStalled)
        page.counter("qchat_file_bytes_total", "File body bytes: written to disk for uploads, handed to streams for downloads.",
                     [MetricSample(["direction": "upload"], metrics.fileBytesReceived),
                      MetricSample(["direction": "download"], metrics.fileBytesSent)])
    }

    private func addClusterFamilies(_ cluster: ClusterLink, to page: inout MetricsPage) {
        let figures = cluster.metrics
        let node = cluster.nodeFigures
        page.gauge("qchat_cluster_ready", "1 once this node joined the cluster and takes hellos.", cluster.isReady ? 1 : 0)
        page.gauge("qchat_cluster_redis_connected", "1 while the connection to Redis is up and checked.", cluster.epochChecked ? 1 : 0)
        page.gauge("qchat_cluster_rooms_followed", "Rooms whose events this node follows (rooms with members here).",
                   cluster.feed.followedRooms.count - 1)  // the node's inbox is followed too
        page.counter("qchat_cluster_appends_total",
                     "Room events appended to Redis, by outcome (refused: a claim of a room another claim owned first).",
                     ["stored", "duplicate", "refused", "lost", "failed"].map { MetricSample(["outcome": $0], figures.appends[$0] ?? 0) })
        page.histogram("qchat_cluster_append_duration_seconds", "From a room event sent to Redis to its answer (failures not included).",
                       [HistogramSeries(figures.appendLatency)])
        page.histogram("qchat_cluster_event_delay_seconds", "From a room event's ts (made on its node) to its delivery here.",
                       [HistogramSeries(figures.eventDelay)])
        page.gauge("qchat_cluster_peer_nodes", "Other nodes in the directory at the last scan.", node.peerNodes)
        page.gauge("qchat_cluster_heartbeat_age_seconds", "Seconds since Redis last confirmed this node's place (since start before the first).",
                   (MonotonicTime.now() - node.lastRenewal).seconds)
        page.counter("qchat_cluster_heartbeat_failures_total", "Renewals of this node's place that Redis did not confirm.",
                     node.renewFailures)
        page.counter("qchat_cluster_events_delivered_total", "Room events delivered here from Redis, in seq order.", figures.eventsDelivered)
        page.counter("qchat_cluster_gap_fills_total", "Reads from a room's stream to fill a gap in its events.", cluster.feed.fillCount)
        page.counter("qchat_cluster_gap_events_lost_total", "Events missed while cut off that the stream no longer had.",
                     figures.eventsLostToTrimming)
        page.counter("qchat_cluster_nodes_reaped_total", "Lost nodes this node took the users of out of their rooms.", node.nodesReaped)
        page.counter("qchat_cluster_epoch_changes_total", "Times Redis was found to have lost its data.", node.epochChanges)
        page.counter("qchat_cluster_store_losses_total", "Appends refused because Redis no longer had what this node had seen.",
                     node.storeLossesFound)
        page.gauge("qchat_cluster_redis_eviction_safe", "0 while a Redis this node stores in may evict keys (maxmemory-policy not noeviction).",
                   node.unsafeEvictionPolicy == nil ? 1 : 0)
    }

    private func addOperationFamilies(to page: inout MetricsPage) {
        page.counter("qchat_config_reloads_total", "Configuration reloads (SIGHUP), by result.",
                     [MetricSample(["result": "success"], metrics.reloadsSucceeded), MetricSample(["result": "failure"], metrics.reloadsFailed)])
        page.gauge("qchat_config_last_reload_success_timestamp_seconds", "When the running settings took effect (start or reload).",
                   metrics.lastReloadTime)
        guard let endpoint = metricsEndpoint else { return }
        let served = endpoint.statistics
        page.counter("qchat_metrics_answers_total", "Answers of this endpoint by HTTP status.",
                     HTTPStatus.allCases.map { MetricSample(["code": String($0.rawValue)], served.answers[$0] ?? 0) })
        page.counter("qchat_metrics_timeouts_total", "Scrape connections closed when their time was up.", served.timeouts)
        page.counter("qchat_metrics_abandoned_total", "Scrape connections that ended before a whole request.", served.abandoned)
        page.counter("qchat_metrics_displaced_total", "Scrape connections closed to make room, with every slot taken, for a new one.",
                     served.displaced)
        page.counter("qchat_metrics_pages_built_total", "Pages built (the others came from the cache).", served.pagesBuilt)
        page.counter("qchat_metrics_accept_errors_total", "Scrape connections the kernel could not hand over (out of descriptors).",
                     served.acceptErrors)
        page.gauge("qchat_metrics_connections", "Scrape connections open.", endpoint.openConnections)
    }

    private func addProcessFamilies(to page: inout MetricsPage) {
        let process = ProcessFigures.current()
        page.counter("process_cpu_seconds_total", "User and system CPU time spent, in seconds.", seconds: process.cpuSeconds)
        page.gauge("process_resident_memory_bytes", "Resident memory size in bytes.", process.residentBytes)
        page.gauge("process_virtual_memory_bytes", "Virtual memory size in bytes.", process.virtualBytes)
        page.gauge("process_open_fds", "Open file descriptors.", process.openDescriptors)
        page.gauge("process_max_fds", "The limit of open file descriptors.", process.maxDescriptors)
        page.gauge("process_start_time_seconds", "Start time of the process since the Unix epoch, in seconds.", process.startTime)
    }
}
