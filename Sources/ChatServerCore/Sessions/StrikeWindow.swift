/// Counts events within a sliding time window: "10 rate-limited errors within 10 s".
struct StrikeWindow {
    private(set) var limit: Int
    private(set) var windowMilliseconds: Int64
    /// Times of the latest strikes, at most `limit`, oldest first.
    private var times: [Int64] = []

    init(limit: Int, windowMilliseconds: Int64) {
        self.limit = limit
        self.windowMilliseconds = windowMilliseconds
    }

    /// New limits; the latest strikes are kept, as many as the new limit counts.
    mutating func reconfigure(limit: Int, windowMilliseconds: Int64) {
        self.limit = limit
        self.windowMilliseconds = windowMilliseconds
        if times.count > limit { times.removeFirst(times.count - limit) }
    }

    /// Records a strike and tells whether `limit` strikes now lie within the window.
    mutating func strike(now: Int64) -> Bool {
        times.append(now)
        if times.count > limit { times.removeFirst(times.count - limit) }
        guard times.count == limit, let oldest = times.first else { return false }
        return now - oldest < windowMilliseconds
    }

    /// Whether `limit` strikes lie within the window ending now, without recording one.
    func isFull(now: Int64) -> Bool {
        guard times.count == limit, let oldest = times.first else { return false }
        return now - oldest < windowMilliseconds
    }

    /// Takes back one strike recorded at `time` (a reserved attempt that turned out right); does
    /// nothing when it has already left the window's record.
    mutating func remove(at time: Int64) {
        if let index = times.firstIndex(of: time) { times.remove(at: index) }
    }

    /// The time of the latest strike, if any.
    var latest: Int64? { times.last }
}
