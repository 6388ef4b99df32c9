import Testing

@testable import ChatServerCore

/// `room event not stored` aggregated (issue 26, item 7): the issue's run logged 3,911 lines in
/// 9 s, one per refused message, while Redis was down.
@Suite struct NotStoredWarningsTests {
    private struct Line {
        let event: String
        let fields: [String: String]
        let at: Int64
        /// How many refusals the line stands for.
        var refusals: Int { event == "room event not stored" ? 1 : Int(fields["count"] ?? "") ?? -1 }
    }

    private static func lines(_ actions: [ServerAction], at now: Int64) -> [Line] {
        actions.compactMap { action in
            guard case .log(.warning, let event, let fields) = action else { return nil }
            return Line(event: event, fields: fields, at: now)
        }
    }

    /// 3,911 refusals over 9 s in 40 rooms, the core's tick every second: at most a line a
    /// second, and together they account for every refusal; the first says its room and error.
    @Test func aStormOfRefusalsIsOneLineASecond() {
        var warnings = NotStoredWarnings()
        var lines: [Line] = []
        let start: Int64 = 1_700_000_000_000
        var nextTick = start + 400
        for index in 0..<3911 {
            let now = start + Int64(index) * 9000 / 3911
            while nextTick <= now {
                var out: [ServerAction] = []
                warnings.flush(now: nextTick, into: &out)
                lines += Self.lines(out, at: nextTick)
                nextTick += 1000
            }
            var out: [ServerAction] = []
            warnings.note(room: "room\(index % 40)", error: index < 3000 ? "not connected" : "redis unreachable", now: now, into: &out)
            lines += Self.lines(out, at: now)
        }
        for _ in 0..<3 {
            var out: [ServerAction] = []
            warnings.flush(now: nextTick, into: &out)
            lines += Self.lines(out, at: nextTick)
            nextTick += 1000
        }
        #expect(lines.reduce(0) { $0 + $1.refusals } == 3911)
        #expect(lines.count <= 11, "\(lines.map(\.event))")
        for (earlier, later) in zip(lines, lines.dropFirst()) { #expect(later.at - earlier.at >= 1000) }
        #expect(lines.first?.event == "room event not stored")
        #expect(lines.first?.fields == ["room": "room0", "error": "not connected"])
        #expect(lines.last?.fields["error"] == "redis unreachable")
        #expect(lines.dropFirst().allSatisfy { $0.fields["rooms"] == "40" })
    }

    /// After a quiet second, the next refusal is logged at once, on its own.
    @Test func aRefusalAfterQuietIsLoggedAtOnce() {
        var warnings = NotStoredWarnings()
        var out: [ServerAction] = []
        warnings.note(room: "lobby", error: "not connected", now: 10_000, into: &out)
        warnings.flush(now: 11_000, into: &out)
        warnings.note(room: "dev", error: "backlog full", now: 12_500, into: &out)
        let events = Self.lines(out, at: 0).map { "\($0.event) \($0.fields["room"] ?? "")" }
        #expect(events == ["room event not stored lobby", "room event not stored dev"])
    }
}
