/// The report as JSON (`--json FILE`), for scripts such as scripts/bench-chat.sh.
extension LoadReport {
    func json() -> String {
        JSONValue.object([
            ("ok", .bool(passed)),
            ("parameters", .object([
                ("server", .string(options.connection.serverList)),
                ("clients", .integer(options.clients)), ("rooms", .integer(options.rooms)),
                ("rate", .number(options.rate)), ("arrivals", .string(options.arrivals.rawValue)),
                ("size", .integer(options.size)), ("typing_rate", .number(options.typingRate)),
                ("duration_s", .number(options.duration)), ("warmup_s", .number(options.warmup)),
                ("churn", .number(options.churn)), ("file_size", .integer(Int(options.fileSize))), ("file_rate", .number(options.fileRate)),
            ])),
            ("connect", .object([
                ("started", .integer(connectsStarted)), ("joined", .integer(joined)), ("failed", .integer(connectFailures)),
                ("seconds", .number(connectSeconds)), ("churn_connects", .integer(churnConnects)), ("connect_retries", .integer(connectRetries)),
                ("joined_per_server", .object(joinedPerServer.map { ($0.server, .integer($0.joined)) })),
                ("ms", Self.json(connect)),
            ])),
            ("messages", .object([
                ("sent", .integer(sent)), ("sent_measured", .integer(sentMeasured)), ("acknowledged", .integer(acknowledged)),
                ("unacknowledged_measured", .integer(unacknowledgedMeasured)), ("rate_limited", .integer(rateLimited)),
                ("unavailable", .integer(unavailable)), ("refused", .integer(refused)), ("unacknowledged", .integer(unacknowledged)),
                ("errors", .object(errors.sorted { $0.key < $1.key }.map { ($0.key, .integer($0.value)) })),
                ("skipped_no_client", .integer(skippedNoClient)), ("worst_send_lag_ms", .number(worstSendLagMilliseconds)),
            ])),
            ("deliveries", .object([
                ("expected", .integer(expected)), ("delivered", .integer(delivered)), ("per_second", .number(deliveredPerSecond)),
                ("received_all", .integer(deliveredAll)),
                ("lost", .integer(lost)), ("duplicated", .integer(duplicates)), ("out_of_order", .integer(outOfOrder)),
                ("replayed", .integer(replayedDelivered)), ("replayed_already_seen", .integer(replayedAlreadySeen)),
                ("latency_ms", Self.json(latency)),
            ])),
            ("typing", .object([
                ("sent", .integer(typingSent)), ("refused", .integer(typingRefused)), ("expected", .integer(typingExpected)),
                ("received", .integer(typingReceived)), ("received_all", .integer(typingReceivedAll)), ("delivery_ratio", .number(typingRatio)),
                ("latency_ms", Self.json(typingLatency)),
            ])),
            ("files", .object([
                ("started", .integer(filesStarted)), ("completed", .integer(filesCompleted)), ("failed", .integer(filesFailed)),
                ("bytes", .integer(Int(fileBytes))), ("throughput_mib_s", .number(fileThroughput)),
            ])),
            ("moves", .object([
                ("moved", .integer(moves)), ("unfinished", .integer(unfinishedMoves)), ("resent", .integer(resent)),
                ("ms", Self.json(moveTime)), ("reasons", .object(moveReasons.map { ($0.reason, .integer($0.count)) })),
            ])),
            ("closed_unexpectedly", .integer(closedUnexpectedly)),
            ("bot_cpu_seconds", .number(botCPUSeconds)),
        ]).rendered() + "\n"
    }

    private static func json(_ distribution: Distribution) -> JSONValue {
        .object([
            ("count", .integer(Int(distribution.count))), ("p50", .number(distribution.p50)), ("p90", .number(distribution.p90)),
            ("p99", .number(distribution.p99)), ("p99_9", .number(distribution.p999)), ("max", .number(distribution.max)),
            ("mean", .number(distribution.mean)),
        ])
    }
}
