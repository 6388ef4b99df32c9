/// The warning for room events a shared store did not take, aggregated (issue 26, item 7): while
/// Redis is down every message is refused, and a line per message (3,911 lines in 9 s in the
/// issue's run) drowns the log. At most one line a second: a refusal after a second without any
/// line is logged at once (`room event not stored`, its room and error); those that follow are
/// counted, and ``flush(now:into:)`` (the core's tick, every second) logs them as one line once a
/// second has passed since the last (`room events not stored`, their count, how many rooms and the
/// last error). Nothing refused goes unmentioned: the last count is logged by the next tick.
struct NotStoredWarnings {
    /// When the last line was logged (ms); far in the past before the first.
    private var lastLine = Int64.min / 2
    private var count = 0
    private var rooms: Set<String> = []
    private var lastError = ""
    /// The most distinct rooms remembered for one line: beyond it the line says "at least".
    static let roomsRemembered = 1000

    mutating func note(room: String, error: String, now: Int64, into out: inout [ServerAction]) {
        if count == 0 && now - lastLine >= 1000 {
            lastLine = now
            out.append(.log(.warning, "room event not stored", ["room": room, "error": error]))
            return
        }
        count += 1
        if rooms.count < Self.roomsRemembered { rooms.insert(room) }
        lastError = error
    }

    /// Logs what was counted, once a second has passed since the last line.
    mutating func flush(now: Int64, into out: inout [ServerAction]) {
        guard count > 0, now - lastLine >= 1000 else { return }
        lastLine = now
        out.append(.log(.warning, "room events not stored",
                        ["count": String(count), "rooms": rooms.count < Self.roomsRemembered ? String(rooms.count) : "\(rooms.count)+",
                         "error": lastError]))
        count = 0
        rooms = []
    }
}
