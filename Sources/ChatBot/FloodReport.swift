/// What `chat-bot flood` saw: totals over its connections and how each ended.
struct FloodReport {
    let options: FloodOptions
    let seconds: Double
    let connections: Int
    let joined: Int
    let sent: Int
    let acknowledged: Int
    let rateLimited: Int
    let otherErrors: [String: Int]
    let closes: [String: Int]
    /// Over the connections the server closed with FLOODING: the fewest `rate-limited` errors
    /// one had received before it, and how long after joining it came.
    let fewestRateLimitedBeforeFlooding: Int?
    let floodingAfterMilliseconds: (mean: Double, max: Double)?

    init(options: FloodOptions, seconds: Double, records: [FloodBot.ConnectionRecord], otherErrors: [String: Int]) {
        self.options = options
        self.seconds = seconds
        self.otherErrors = otherErrors
        connections = records.count
        joined = records.filter { $0.joinedAt != nil }.count
        sent = records.reduce(0) { $0 + $1.sent }
        acknowledged = records.reduce(0) { $0 + $1.acknowledged }
        rateLimited = records.reduce(0) { $0 + $1.rateLimited }
        closes = records.reduce(into: [:]) { $0[$1.close, default: 0] += 1 }
        let flooded = records.filter { $0.close == "FLOODING" }
        fewestRateLimitedBeforeFlooding = flooded.map(\.rateLimited).min()
        let after = flooded.compactMap(\.closedAfter).map { $0.seconds * 1000 }
        floodingAfterMilliseconds = after.isEmpty ? nil : (after.reduce(0, +) / Double(after.count), after.max() ?? 0)
    }

    func table() -> String {
        let rounded = { (value: Double) in (value * 10).rounded() / 10 }
        var lines = [
            "chat-bot flood: \(options.rate) msgs/s offered to #\(options.room) for \(rounded(seconds)) s",
            "| connections (joined) | \(connections) (\(joined)) |",
            "| sent / accepted / rate-limited | \(sent) / \(acknowledged) / \(rateLimited) |",
            "| closes | \(closes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")) |",
        ]
        if let fewest = fewestRateLimitedBeforeFlooding, let after = floodingAfterMilliseconds {
            lines.append("| FLOODING after | at least \(fewest) rate-limited each; \(rounded(after.mean)) ms after joining on average, \(rounded(after.max)) ms at most |")
        }
        if !otherErrors.isEmpty {
            lines.append("| other errors | \(otherErrors.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")) |")
        }
        return lines.joined(separator: "\n")
    }

    func json() -> String {
        var members: [(String, JSONValue)] = [
            ("rate", .number(options.rate)), ("room", .string(options.room)), ("seconds", .number(seconds)),
            ("connections", .integer(connections)), ("joined", .integer(joined)),
            ("sent", .integer(sent)), ("acknowledged", .integer(acknowledged)), ("rate_limited", .integer(rateLimited)),
            ("errors", .object(otherErrors.sorted { $0.key < $1.key }.map { ($0.key, .integer($0.value)) })),
            ("closes", .object(closes.sorted { $0.key < $1.key }.map { ($0.key, .integer($0.value)) })),
        ]
        if let fewest = fewestRateLimitedBeforeFlooding, let after = floodingAfterMilliseconds {
            members.append(("flooding", .object([("fewest_rate_limited_before", .integer(fewest)),
                                                 ("mean_ms_after_join", .number(after.mean)), ("max_ms_after_join", .number(after.max))])))
        }
        return JSONValue.object(members).rendered() + "\n"
    }
}
