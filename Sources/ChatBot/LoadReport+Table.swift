/// The report as a markdown table for standard output.
extension LoadReport {
    func table() -> String {
        let churn = options.churn > 0 ? ", churn \(options.churn)/s" : ""
        let typing = options.irc ? "" : ", typing \(options.typingRate)/s"
        var lines = [
            "\(name): \(options.clients) clients in \(options.rooms) room(s), \(options.rate) msg/s (\(options.arrivals.rawValue)), "
                + "\(options.size) B\(typing)\(churn); \(options.duration) s measured after \(options.warmup) s warm-up",
            "",
            "| figure | value |",
            "|---|---|",
            "| connect (handshake + join) ms p50 / p90 / p99 / p99.9 / max | \(Self.row(connect)) |",
            "| connected | \(joined) of \(options.clients) in \(connectSeconds) s (\(connectFailures) failed, \(connectRetries) retried), \(churnConnects) churn reconnects |",
            "| messages sent (measured / all) | \(sentMeasured) / \(sent), acked \(acknowledged), unacked \(unacknowledgedMeasured) |",
        ]
        if joinedPerServer.count > 1 {
            lines.append("| joined per server | \(joinedPerServer.map { "\($0.server) \($0.joined)" }.joined(separator: ", ")) |")
        }
        if !options.irc {
            lines.append("| rate-limited replies | \(rateLimited)\(rateLimited > 0 ? " (raise chat-server --flood-burst and --flood-rate)" : "") |")
        }
        if unavailable > 0 || refused > 0 || unacknowledged > 0 {
            lines.append("| unavailable (sent again) / refused / never acknowledged | \(unavailable) / \(refused) / \(unacknowledged)"
                + (refused + unacknowledged > 0 ? " (messages lost: the run fails)" : "") + " |")
        }
        if !errors.isEmpty {
            lines.append("| other errors | \(errors.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")) |")
        }
        if skippedNoClient > 0 { lines.append("| not sent (no joined client) | \(skippedNoClient) |") }
        lines += [
            "| deliveries expected / delivered | \(expected) / \(delivered) |",
            "| deliveries per second | \(deliveredPerSecond) |",
            "| lost / duplicated / out of order | \(lost) / \(duplicates) / \(outOfOrder) |",
            "| latency ms p50 / p90 / p99 / p99.9 / max | \(Self.row(latency)) |",
        ]
        if options.typingRate > 0 {
            lines += [
                "| typing sent / expected / received (ratio) | \(typingSent) / \(typingExpected) / \(typingReceived) (\(typingRatio)), refused \(typingRefused) |",
                "| typing latency ms p50 / p90 / p99 / p99.9 / max | \(Self.row(typingLatency)) |",
            ]
        }
        if options.fileRate > 0 {
            lines.append("| file uploads started / completed / failed | \(filesStarted) / \(filesCompleted) / \(filesFailed), "
                + "\(fileBytes >> 20) MiB at \(fileThroughput) MiB/s |")
        }
        if !options.irc {
            let timing = moves == 0 ? "" : " in \(moveTime.p50) / \(moveTime.p99) / \(moveTime.max) ms (p50 / p99 / max)"
            let replays = replayedDelivered + replayedAlreadySeen == 0
                ? "" : ", \(replayedDelivered) deliveries replayed" + (replayedAlreadySeen > 0 ? " (\(replayedAlreadySeen) already seen)" : "")
            lines.append("| moves (lost connections resumed) | \(moves)\(timing), \(unfinishedMoves) unfinished, \(resent) messages resent\(replays)"
                + (moveReasons.isEmpty ? "" : " (" + moveReasons.map { "\($0.count) × \($0.reason)" }.joined(separator: "; ") + ")") + " |")
        }
        lines += [
            "| connections closed unexpectedly | \(closedUnexpectedly)\(closeReasons.isEmpty ? "" : " (" + closeReasons.joined(separator: "; ") + ")") |",
            "| worst send lag behind schedule | \(worstSendLagMilliseconds) ms |",
            "| chat-bot CPU | \(botCPUSeconds) s |",
            "| result | \(passed ? "ok" : "FAILED") |",
        ]
        return lines.joined(separator: "\n")
    }

    private static func row(_ distribution: Distribution) -> String {
        distribution.count == 0
            ? "none"
            : "\(distribution.p50) / \(distribution.p90) / \(distribution.p99) / \(distribution.p999) / \(distribution.max)"
    }
}
